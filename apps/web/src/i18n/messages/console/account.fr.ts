import type { AreaTranslation } from './en.js';
import type { account as english } from './account.en.js';

export const account: AreaTranslation<typeof english> = {
  'account.title': 'Sécurité du compte',
  'account.signedInAs':
    'Connecté en tant que {username} ({role}) {method, select, twoFactor {avec un mot de passe et un second facteur} oidc {via votre fournisseur d’identité} password {avec un mot de passe} other {avec {method}}}.',
  'account.twoFactorTitle': 'Connexion à deux facteurs',
  'account.passwordTitle': 'Mot de passe',
  'account.oidcPassword':
    'Vous vous connectez via votre fournisseur d’identité : changez votre mot de passe chez lui.',
  'account.passwordForm': 'Changer votre mot de passe',
  'account.currentPassword': 'Mot de passe actuel',
  'account.newPassword': 'Nouveau mot de passe',
  'account.newPasswordHint':
    'Au moins {min} caractères ; une phrase de passe de quelques mots convient bien.',
  'account.newPasswordAgain': 'Nouveau mot de passe (confirmation)',
  'account.mismatch': 'ne correspond pas au nouveau mot de passe',
  'account.changing': 'Modification…',
  'account.changePassword': 'Changer le mot de passe',
  'account.passwordChanged': 'Mot de passe changé. Vos autres sessions sont terminées ; celle-ci continue.',
  'account.recoveryTitle': 'Codes de récupération',
  'account.recoveryWarning':
    'Gardez ces codes en lieu sûr, à l’écart de votre authentificateur : chacun vous connecte une fois si l’authentificateur est perdu. Ils ne sont affichés que maintenant.',
  'account.recoveryFile': 'Codes de récupération svc hub ({host}) : chacun sert une fois',
  'account.copyCodes': 'Copier les codes',
  'account.downloadCodes': 'Télécharger les codes',
  'account.savedCodes': 'Je les ai enregistrés',
  'account.checking': 'Vérification…',
  'account.off':
    'La connexion à deux facteurs est {off}. Activée, la connexion demande aussi un code d’une application d’authentification (toute application TOTP).',
  'account.offWord': 'désactivée',
  'account.setUp': 'Configurer la connexion à deux facteurs',
  'account.qrLabel': 'QR code pour votre application d’authentification',
  'account.scan': 'Scannez le QR code avec votre application d’authentification.',
  'account.typeSecret': 'Ou saisissez-y ce secret : {secret}',
  'account.enterCode':
    'Saisissez le code affiché par l’application pour activer la connexion à deux facteurs.',
  'account.appCode': 'Code de votre application d’authentification',
  'account.turnOn': 'Activer',
  'account.on':
    'La connexion à deux facteurs est {on} : la connexion demande un code de votre application d’authentification, ou un code de récupération.',
  'account.onWord': 'activée',
  'account.newCodes': 'Nouveaux codes de récupération',
  'account.turnOff': 'Désactiver',
  'account.oldCodesStop': 'Les anciens codes de récupération cessent de fonctionner.',
  'account.makeCodes': 'Générer de nouveaux codes',
  'account.anyCode': 'Code d’authentification ou de récupération',
  'account.turnOffFull': 'Désactiver la connexion à deux facteurs',
  'account.turnOffTitle': 'Désactiver la connexion à deux facteurs ?',
  'account.turnItOff': 'La désactiver',
  'account.turnOffText':
    'La connexion ne demandera alors que votre mot de passe. Vos codes de récupération cessent de fonctionner.',
  'account.loading2fa': 'Chargement de la connexion à deux facteurs',
};
