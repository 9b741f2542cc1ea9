/**
 * Two-factor sign-in for the signed-in user (spec 5.2): setup shows a QR code of the otpauth URI (and the
 * secret, for typing in), a code confirms it, and the 8 recovery codes are shown once with copy and download.
 * When on: new recovery codes, or turning it off, each with a current code.
 */
import { useState, type SyntheticEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TotpSetup } from '@svc/protocol';
import { hub } from '../../api/client';
import { fieldProblems } from '../../components/form-problems';
import { sessionKey } from '../../app/session';
import { CopyButton } from '../../components/CopyButton';
import { ConfirmDialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { Loading } from '../../components/Loading';
import { useT } from '../../i18n/I18nProvider';
import { QrCode } from './QrCode';

const twoFactorKey = ['account', '2fa'] as const;

/** Offers `text` as a file download, made in the browser (nothing is sent anywhere). */
function saveTextFile(filename: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 10_000);
}

function RecoveryCodesView({ codes, onDone }: { codes: readonly string[]; onDone: () => void }) {
  const { t } = useT();
  const text = `${t('account.recoveryFile', { host: window.location.host })}\n${codes.join('\n')}\n`;
  return (
    <section className="stack-form" aria-labelledby="recovery-title">
      <h3 id="recovery-title">{t('account.recoveryTitle')}</h3>
      <p className="notice warning" role="note">
        {t('account.recoveryWarning')}
      </p>
      <ol className="recovery-codes" aria-label={t('account.recoveryTitle')}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="actions-row">
        <CopyButton text={codes.join('\n')} label={t('account.copyCodes')} />
        <button
          type="button"
          onClick={() => {
            saveTextFile('svc-recovery-codes.txt', text);
          }}
        >
          {t('account.downloadCodes')}
        </button>
        <button type="button" className="primary" onClick={onDone}>
          {t('account.savedCodes')}
        </button>
      </div>
    </section>
  );
}

function CodeForm({
  label,
  submitLabel,
  busy,
  error,
  onSubmit,
  hint,
}: {
  label: string;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit: (code: string) => void;
  hint?: string;
}) {
  const { t } = useT();
  const [code, setCode] = useState('');
  const problems = fieldProblems(error);
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    onSubmit(code.trim());
  };
  return (
    <form className="stack-form narrow" onSubmit={submit} noValidate>
      <TextField
        label={label}
        problem={problems.code}
        hint={hint}
        autoComplete="one-time-code"
        inputMode="text"
        value={code}
        onChange={setCode}
      />
      {error !== null && <ErrorNotice error={error} />}
      <div>
        <button type="submit" className="primary" disabled={busy || code.trim().length < 6}>
          {busy ? t('account.checking') : submitLabel}
        </button>
      </div>
    </form>
  );
}

function Setup({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const { t, rich } = useT();
  const client = useQueryClient();
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const start = useMutation({
    mutationFn: async () => (await hub.call('auth.2faSetup')).data,
    onSuccess: setSetup,
  });
  const verify = useMutation({
    mutationFn: async (code: string) => (await hub.call('auth.2faVerify', { body: { code } })).data,
    onSuccess: (result) => {
      // On from now: once the codes are put away, the page shows it without a flash of the setup.
      client.setQueryData(twoFactorKey, { enabled: true });
      onCodes(result.recovery_codes);
    },
  });
  if (!setup) {
    return (
      <div className="stack-form">
        <p>{rich('account.off', { off: <strong>{t('account.offWord')}</strong> })}</p>
        {start.isError && <ErrorNotice error={start.error} />}
        <div>
          <button
            type="button"
            className="primary"
            disabled={start.isPending}
            onClick={() => {
              start.mutate();
            }}
          >
            {t('account.setUp')}
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="totp-setup">
      <div>
        <QrCode text={setup.otpauth_uri} label={t('account.qrLabel')} />
      </div>
      <div className="stack-form">
        <ol className="steps">
          <li>{t('account.scan')}</li>
          <li>
            {rich('account.typeSecret', {
              secret: (
                <code className="totp-secret" data-testid="totp-secret">
                  {setup.secret}
                </code>
              ),
            })}
          </li>
          <li>{t('account.enterCode')}</li>
        </ol>
        <CodeForm
          label={t('account.appCode')}
          submitLabel={t('account.turnOn')}
          busy={verify.isPending}
          error={verify.error}
          onSubmit={(code) => {
            verify.mutate(code);
          }}
        />
      </div>
    </div>
  );
}

function Enabled({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const { t, rich } = useT();
  const client = useQueryClient();
  const [action, setAction] = useState<'none' | 'codes' | 'disable'>('none');
  const [disableCode, setDisableCode] = useState<string | null>(null);
  const regenerate = useMutation({
    mutationFn: async (code: string) => (await hub.call('auth.2faRecoveryCodes', { body: { code } })).data,
    onSuccess: (result) => {
      setAction('none');
      onCodes(result.recovery_codes);
    },
  });
  const disable = useMutation({
    mutationFn: async (code: string) => (await hub.call('auth.2faDisable', { body: { code } })).data,
    onSuccess: async () => {
      setDisableCode(null);
      setAction('none');
      await client.invalidateQueries({ queryKey: twoFactorKey });
      await client.invalidateQueries({ queryKey: sessionKey });
    },
    onError: () => {
      setDisableCode(null);
    },
  });
  return (
    <div className="stack-form">
      <p data-testid="2fa-state">{rich('account.on', { on: <strong>{t('account.onWord')}</strong> })}</p>
      <div className="actions-row">
        <button
          type="button"
          aria-pressed={action === 'codes'}
          onClick={() => {
            regenerate.reset();
            setAction(action === 'codes' ? 'none' : 'codes');
          }}
        >
          {t('account.newCodes')}
        </button>
        <button
          type="button"
          className="danger"
          aria-pressed={action === 'disable'}
          onClick={() => {
            disable.reset();
            setAction(action === 'disable' ? 'none' : 'disable');
          }}
        >
          {t('account.turnOff')}
        </button>
      </div>
      {action === 'codes' && (
        <CodeForm
          label={t('account.appCode')}
          hint={t('account.oldCodesStop')}
          submitLabel={t('account.makeCodes')}
          busy={regenerate.isPending}
          error={regenerate.error}
          onSubmit={(code) => {
            regenerate.mutate(code);
          }}
        />
      )}
      {action === 'disable' && (
        <CodeForm
          label={t('account.anyCode')}
          submitLabel={t('account.turnOffFull')}
          busy={disable.isPending}
          error={disable.error}
          onSubmit={setDisableCode}
        />
      )}
      <ConfirmDialog
        open={disableCode !== null}
        title={t('account.turnOffTitle')}
        confirmLabel={t('account.turnItOff')}
        busy={disable.isPending}
        onConfirm={() => {
          if (disableCode !== null) disable.mutate(disableCode);
        }}
        onClose={() => {
          setDisableCode(null);
        }}
      >
        <p>{t('account.turnOffText')}</p>
      </ConfirmDialog>
    </div>
  );
}

export function TwoFactor() {
  const { t } = useT();
  const client = useQueryClient();
  const [codes, setCodes] = useState<string[] | null>(null);
  const status = useQuery({
    queryKey: twoFactorKey,
    queryFn: async () => (await hub.call('auth.2faStatus')).data,
  });
  if (codes) {
    return (
      <RecoveryCodesView
        codes={codes}
        onDone={() => {
          setCodes(null);
          void client.invalidateQueries({ queryKey: twoFactorKey });
          void client.invalidateQueries({ queryKey: sessionKey });
        }}
      />
    );
  }
  if (status.isPending) return <Loading label={t('account.loading2fa')} />;
  if (status.isError) return <ErrorNotice error={status.error} retry={() => void status.refetch()} />;
  return status.data.enabled ? <Enabled onCodes={setCodes} /> : <Setup onCodes={setCodes} />;
}
