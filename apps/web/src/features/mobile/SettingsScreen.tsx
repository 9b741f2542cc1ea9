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
import { changeSetting, currentSettings } from './device';
import { isDeviceRegistered, registerDevice } from './device-owner';
import { HubNameNotice } from './HubNameNotice';
import { subscribePush, unsubscribePush } from './push';
import { clockOf, minutesOf, type MobileSettingName, type MobileSettings } from './settings';
import { signOutDevice } from './sign-out';

type BooleanSetting = {
  [K in MobileSettingName]: MobileSettings[K] extends boolean ? K : never;
}[MobileSettingName];

const toggles: { name: BooleanSetting; label: string }[] = [
  { name: 'queueOfflineActions', label: 'Queue actions while the hub is unreachable' },
  { name: 'autoReconnect', label: 'Reconnect after a dropped connection' },
  { name: 'requireBiometricRemoteAccess', label: 'Verify the device owner before a remote session' },
  { name: 'pushQuietHoursEnabled', label: 'Quiet hours (only critical alerts)' },
  { name: 'liveActivitiesEnabled', label: 'Persistent incident notifications' },
  { name: 'liveActivitiesAutoStartHigh', label: 'Also for warning (high) incidents' },
  { name: 'liveActivitiesSessionEnabled', label: 'Notification while a remote session runs' },
  { name: 'liveActivitiesShowFullDetails', label: 'Full details in notifications (else redacted)' },
  { name: 'connectionDebugBanner', label: 'Connection diagnostics banner' },
  { name: 'mobileClientTelemetry', label: 'Send diagnostics events to the hub' },
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
  const client = useQueryClient();
  const navigate = useNavigate();
  const [settings, setSettings] = useState(currentSettings);
  const [message, setMessage] = useState<string | null>(null);
  const [registered, setRegistered] = useState(isDeviceRegistered);
  const set = <K extends MobileSettingName>(name: K, value: MobileSettings[K]) => {
    const problem = changeSetting(name, value);
    setMessage(problem);
    setSettings(currentSettings());
  };
  const run = (what: () => Promise<void>, done: string) => {
    setMessage(null);
    what().then(
      () => {
        setMessage(done);
      },
      (error: unknown) => {
        setMessage(errorText(error));
      },
    );
  };
  return (
    <section aria-labelledby="m-settings-title">
      <h1 id="m-settings-title">Settings</h1>
      <p className="m-muted">Kept on this device only.</p>
      <fieldset>
        <legend>Behaviour</legend>
        {toggles.map(({ name, label }) => (
          <label key={name} className="m-toggle">
            <span>{label}</span>
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
        <legend>Push alerts</legend>
        <Field label="Minimum severity">
          <select
            value={settings.pushMinimumSeverity}
            onChange={(e) => {
              set('pushMinimumSeverity', e.target.value as NotificationSeverity);
            }}
          >
            <option value="info">info</option>
            <option value="warning">warning</option>
            <option value="critical">critical</option>
          </select>
        </Field>
        <Field label="Quiet hours start">
          <input
            type="time"
            value={clockOf(settings.pushQuietHoursStartMinutes)}
            onChange={(e) => {
              const minutes = minutesOf(e.target.value);
              if (minutes !== null) set('pushQuietHoursStartMinutes', minutes);
            }}
          />
        </Field>
        <Field label="Quiet hours end">
          <input
            type="time"
            value={clockOf(settings.pushQuietHoursEndMinutes)}
            onChange={(e) => {
              const minutes = minutesOf(e.target.value);
              if (minutes !== null) set('pushQuietHoursEndMinutes', minutes);
            }}
          />
        </Field>
        <Field label="Digest window (seconds)">
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
                  throw new Error('notifications are not allowed');
                await subscribePush(currentSettings());
              }, 'Push alerts on: this device is subscribed.');
            }}
          >
            Turn on push alerts
          </button>
          <button
            type="button"
            onClick={() => {
              run(unsubscribePush, 'Push alerts off.');
            }}
          >
            Turn off
          </button>
        </div>
      </fieldset>
      <fieldset>
        <legend>This device</legend>
        <p>{registered ? 'Device owner check: registered.' : 'Device owner check: not registered yet.'}</p>
        <HubNameNotice what="a remote session or a quick action" />
        <button
          type="button"
          onClick={() => {
            run(async () => {
              await registerDevice();
              setRegistered(true);
            }, 'This device is registered for device-owner checks.');
          }}
        >
          Register this device
        </button>
        <Field label="Untrusted certificate allowed for">
          <output>{settings.allowUntrustedTLS ?? 'no hub (off)'}</output>
        </Field>
        <button
          type="button"
          onClick={() => {
            run(async () => {
              await signOutDevice();
              endSession(client);
              await navigate('/m/');
            }, 'Signed out.');
          }}
        >
          Sign out
        </button>
      </fieldset>
      {message ? <p role="status">{message}</p> : null}
    </section>
  );
}
