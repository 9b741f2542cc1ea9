/**
 * The device-owner gate (`requireBiometricRemoteAccess`; decision 0033): a button that verifies the device
 * owner with this device's platform authenticator for one purpose, then hands the hub's one-use proof to
 * `onVerified`. The seam of every guarded step: a quick action that changes an incident, and the opening of a
 * terminal or desktop session (`session:<kind>:<asset id>`), whose call is `onVerified`.
 */
import { useState } from 'react';
import { errorText } from '../../api/client';
import { useT } from '../../i18n/I18nProvider';
import { proveDeviceOwner } from './device-owner';
import { openedByAddress } from './HubNameNotice';

export function DeviceOwnerGate({
  purpose,
  label,
  required,
  onVerified,
  disabled = false,
}: {
  purpose: string;
  label: string;
  /** `requireBiometricRemoteAccess` for sessions; quick actions always require it (spec 2.7). */
  required: boolean;
  onVerified: (proof: string | null) => Promise<void>;
  disabled?: boolean;
}) {
  const { t } = useT();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Passkeys cannot run on a page opened by IP address: the screen's HubNameNotice says where to go instead.
  const impossible = required && openedByAddress();
  return (
    <span className="m-gate">
      <button
        type="button"
        disabled={busy || disabled || impossible}
        onClick={() => {
          setBusy(true);
          setError(null);
          void (async () => {
            try {
              const proof = required ? await proveDeviceOwner(purpose) : null;
              await onVerified(proof);
            } catch (e) {
              setError(errorText(e));
            } finally {
              setBusy(false);
            }
          })();
        }}
      >
        {busy ? t('mobile.verifying') : label}
      </button>
      {error ? (
        <span role="alert" className="m-error" translate="no">
          {error}
        </span>
      ) : null}
    </span>
  );
}
