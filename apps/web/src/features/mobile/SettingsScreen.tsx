/**
 * The device's settings (interface 2.7): every `svc.settings.*` key, kept on this device only; push alerts
 * (the subscription carries the push routing to the hub), this device's authenticator, and sign-out.
 */
import { useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { NotificationSeverity } from '@svc/protocol';
import { errorText } from '../../api/client';
import { endSession } from '../../app/session';
import { useT } from '../../i18n/I18nProvider';
import { changeSetting, currentSettings } from './device';
import { isDeviceRegistered, registerDevice } from './device-owner';
import { HubNameNotice } from './HubNameNotice';
import { subscribePush, unsubscribePush } from './push';
import { clockOf, minutesOf, storageKeyOf, type MobileSettingName, type MobileSettings } from './settings';
import { signOutDevice } from './sign-out';

type BooleanSetting = {
  [K in MobileSettingName]: MobileSettings[K] extends boolean ? K : never;
}[MobileSettingName];

/** In this order; each labelled by `mobile.toggle`. */
const toggles: BooleanSetting[] = [
  'queueOfflineActions',
  'autoReconnect',
  'requireBiometricRemoteAccess',
  'pushQuietHoursEnabled',
  'liveActivitiesEnabled',
  'liveActivitiesAutoStartHigh',
  'liveActivitiesSessionEnabled',
  'liveActivitiesShowFullDetails',
  'connectionDebugBanner',
  'mobileClientTelemetry',
];

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="m-field">
      <span>{label}</span>
      {children}
    </label>
  );
}

export function SettingsScreen() {
  const { t } = useT();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [settings, setSettings] = useState(currentSettings);
  // A status line: this screen's words, or data (the hub's error).
  const [message, setMessage] = useState<{ text: string; data: boolean } | null>(null);
  const [registered, setRegistered] = useState(isDeviceRegistered);
  const set = <K extends MobileSettingName>(name: K, value: MobileSettings[K]) => {
    const refused = changeSetting(name, value) !== null;
    setMessage(
      refused
        ? {
            text: t('mobile.settingRefused', { key: storageKeyOf(name), value: JSON.stringify(value) }),
            data: false,
          }
        : null,
    );
    setSettings(currentSettings());
  };
  const run = (what: () => Promise<void>, done: string) => {
    setMessage(null);
    what().then(
      () => {
        setMessage({ text: done, data: false });
      },
      (error: unknown) => {
        setMessage({ text: errorText(error), data: true });
      },
    );
  };
  return (
    <section aria-labelledby="m-settings-title">
      <h1 id="m-settings-title">{t('mobile.settings')}</h1>
      <p className="m-muted">{t('mobile.keptHere')}</p>
      <fieldset>
        <legend>{t('mobile.behaviour')}</legend>
        {toggles.map((name) => (
          <label key={name} className="m-toggle">
            <span>{t('mobile.toggle', { name })}</span>
            <input
              type="checkbox"
              checked={settings[name]}
              onChange={(e) => {
                set(name, e.target.checked);
              }}
            />
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>{t('mobile.pushAlerts')}</legend>
        <Field label={t('mobile.minimumSeverity')}>
          <select
            value={settings.pushMinimumSeverity}
            onChange={(e) => {
              set('pushMinimumSeverity', e.target.value as NotificationSeverity);
            }}
          >
            {(['info', 'warning', 'critical'] as const).map((severity) => (
              <option key={severity} value={severity}>
                {t('alert.severity', { severity })}
              </option>
            ))}
          </select>
        </Field>
        <Field label={t('mobile.quietStart')}>
          <input
            type="time"
            value={clockOf(settings.pushQuietHoursStartMinutes)}
            onChange={(e) => {
              const minutes = minutesOf(e.target.value);
              if (minutes !== null) set('pushQuietHoursStartMinutes', minutes);
            }}
          />
        </Field>
        <Field label={t('mobile.quietEnd')}>
          <input
            type="time"
            value={clockOf(settings.pushQuietHoursEndMinutes)}
            onChange={(e) => {
              const minutes = minutesOf(e.target.value);
              if (minutes !== null) set('pushQuietHoursEndMinutes', minutes);
            }}
          />
        </Field>
        <Field label={t('mobile.digestWindow')}>
          <input
            type="number"
            min={0}
            max={3600}
            value={settings.pushDigestWindowSeconds}
            onChange={(e) => {
              set('pushDigestWindowSeconds', Number(e.target.value));
            }}
          />
        </Field>
        <div className="m-actions">
          <button
            type="button"
            onClick={() => {
              run(async () => {
                if ((await Notification.requestPermission()) !== 'granted')
                  throw new Error(t('mobile.notificationsRefused'));
                await subscribePush(currentSettings());
              }, t('mobile.pushOn'));
            }}
          >
            {t('mobile.turnOnPush')}
          </button>
          <button
            type="button"
            onClick={() => {
              run(unsubscribePush, t('mobile.pushOff'));
            }}
          >
            {t('mobile.turnOff')}
          </button>
        </div>
      </fieldset>
      <fieldset>
        <legend>{t('mobile.thisDevice')}</legend>
        <p>{t(registered ? 'mobile.ownerRegistered' : 'mobile.ownerNotRegistered')}</p>
        <HubNameNotice what="both" />
        <button
          type="button"
          onClick={() => {
            run(async () => {
              await registerDevice();
              setRegistered(true);
            }, t('mobile.deviceRegistered'));
          }}
        >
          {t('mobile.registerDevice')}
        </button>
        <Field label={t('mobile.untrustedFor')}>
          {settings.allowUntrustedTLS === null ? (
            <output>{t('mobile.noUntrusted')}</output>
          ) : (
            <output translate="no">{settings.allowUntrustedTLS}</output>
          )}
        </Field>
        <button
          type="button"
          onClick={() => {
            run(async () => {
              await signOutDevice();
              endSession(client);
              await navigate('/m/');
            }, t('mobile.signedOut'));
          }}
        >
          {t('mobile.signOut')}
        </button>
      </fieldset>
      {message ? (
        <p role="status" translate={message.data ? 'no' : undefined}>
          {message.text}
        </p>
      ) : null}
    </section>
  );
}
