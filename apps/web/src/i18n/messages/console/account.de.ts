import type { AreaTranslation } from './en.js';
import type { account as english } from './account.en.js';

export const account: AreaTranslation<typeof english> = {
  'account.title': 'Kontosicherheit',
  'account.signedInAs':
    'Angemeldet als {username} ({role}) {method, select, twoFactor {mit Passwort und zweitem Faktor} oidc {über Ihren Identitätsanbieter} password {mit Passwort} other {mit {method}}}.',
  'account.twoFactorTitle': 'Zwei-Faktor-Anmeldung',
  'account.passwordTitle': 'Passwort',
  'account.oidcPassword': 'Sie melden sich über Ihren Identitätsanbieter an: Ändern Sie Ihr Passwort dort.',
  'account.passwordForm': 'Passwort ändern',
  'account.currentPassword': 'Aktuelles Passwort',
  'account.newPassword': 'Neues Passwort',
  'account.newPasswordHint': 'Mindestens {min} Zeichen; eine Passphrase aus einigen Wörtern ist gut.',
  'account.newPasswordAgain': 'Neues Passwort wiederholen',
  'account.mismatch': 'stimmt nicht mit dem neuen Passwort überein',
  'account.changing': 'Wird geändert…',
  'account.changePassword': 'Passwort ändern',
  'account.passwordChanged': 'Passwort geändert. Ihre anderen Sitzungen wurden beendet; diese läuft weiter.',
  'account.recoveryTitle': 'Wiederherstellungscodes',
  'account.recoveryWarning':
    'Bewahren Sie diese Codes sicher und getrennt von Ihrer Authenticator-App auf: Jeder meldet Sie einmal an, wenn der Authenticator verloren ist. Sie werden nur jetzt angezeigt.',
  'account.recoveryFile': 'svc hub Wiederherstellungscodes ({host}): jeder gilt einmal',
  'account.copyCodes': 'Codes kopieren',
  'account.downloadCodes': 'Codes herunterladen',
  'account.savedCodes': 'Ich habe sie gespeichert',
  'account.checking': 'Wird geprüft…',
  'account.off':
    'Die Zwei-Faktor-Anmeldung ist {off}. Ist sie an, fragt die Anmeldung zusätzlich nach einem Code aus einer Authenticator-App (jede TOTP-App).',
  'account.offWord': 'aus',
  'account.setUp': 'Zwei-Faktor-Anmeldung einrichten',
  'account.qrLabel': 'QR-Code für Ihre Authenticator-App',
  'account.scan': 'Scannen Sie den QR-Code mit Ihrer Authenticator-App.',
  'account.typeSecret': 'Oder geben Sie dieses Geheimnis dort ein: {secret}',
  'account.enterCode': 'Geben Sie den Code aus der App ein, um die Zwei-Faktor-Anmeldung einzuschalten.',
  'account.appCode': 'Code aus Ihrer Authenticator-App',
  'account.turnOn': 'Einschalten',
  'account.on':
    'Die Zwei-Faktor-Anmeldung ist {on}: Die Anmeldung fragt nach einem Code aus Ihrer Authenticator-App oder einem Wiederherstellungscode.',
  'account.onWord': 'an',
  'account.newCodes': 'Neue Wiederherstellungscodes',
  'account.turnOff': 'Ausschalten',
  'account.oldCodesStop': 'Die alten Wiederherstellungscodes werden ungültig.',
  'account.makeCodes': 'Neue Codes erzeugen',
  'account.anyCode': 'Authenticator- oder Wiederherstellungscode',
  'account.turnOffFull': 'Zwei-Faktor-Anmeldung ausschalten',
  'account.turnOffTitle': 'Zwei-Faktor-Anmeldung ausschalten?',
  'account.turnItOff': 'Ja, ausschalten',
  'account.turnOffText':
    'Die Anmeldung braucht dann nur noch Ihr Passwort. Ihre Wiederherstellungscodes werden ungültig.',
  'account.loading2fa': 'Zwei-Faktor-Anmeldung wird geladen',
};
