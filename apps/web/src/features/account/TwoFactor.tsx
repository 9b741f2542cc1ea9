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
  const text = `svc hub recovery codes (${window.location.host}): each works once\n${codes.join('\n')}\n`;
  return (
    <section className="stack-form" aria-labelledby="recovery-title">
      <h3 id="recovery-title">Recovery codes</h3>
      <p className="notice warning" role="note">
        Keep these codes somewhere safe, apart from your authenticator: each signs you in once when the
        authenticator is lost. They are shown only now.
      </p>
      <ol className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="actions-row">
        <CopyButton text={codes.join('\n')} label="Copy the codes" />
        <button
          type="button"
          onClick={() => {
            saveTextFile('svc-recovery-codes.txt', text);
          }}
        >
          Download the codes
        </button>
        <button type="button" className="primary" onClick={onDone}>
          I have saved them
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
          {busy ? 'Checking…' : submitLabel}
        </button>
      </div>
    </form>
  );
}

function Setup({ onCodes }: { onCodes: (codes: string[]) => void }) {
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
        <p>
          Two-factor sign-in is <strong>off</strong>. With it on, signing in also asks for a code from an
          authenticator app (any TOTP app).
        </p>
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
            Set up two-factor sign-in
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="totp-setup">
      <div>
        <QrCode text={setup.otpauth_uri} label="QR code for your authenticator app" />
      </div>
      <div className="stack-form">
        <ol className="steps">
          <li>Scan the QR code with your authenticator app.</li>
          <li>
            Or type this secret into it:{' '}
            <code className="totp-secret" data-testid="totp-secret">
              {setup.secret}
            </code>
          </li>
          <li>Enter the code the app shows to turn two-factor sign-in on.</li>
        </ol>
        <CodeForm
          label="Code from your authenticator app"
          submitLabel="Turn on"
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
      <p data-testid="2fa-state">
        Two-factor sign-in is <strong>on</strong>: signing in asks for a code from your authenticator app, or
        a recovery code.
      </p>
      <div className="actions-row">
        <button
          type="button"
          aria-pressed={action === 'codes'}
          onClick={() => {
            regenerate.reset();
            setAction(action === 'codes' ? 'none' : 'codes');
          }}
        >
          New recovery codes
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
          Turn off
        </button>
      </div>
      {action === 'codes' && (
        <CodeForm
          label="Code from your authenticator app"
          hint="The old recovery codes stop working."
          submitLabel="Make new codes"
          busy={regenerate.isPending}
          error={regenerate.error}
          onSubmit={(code) => {
            regenerate.mutate(code);
          }}
        />
      )}
      {action === 'disable' && (
        <CodeForm
          label="Authenticator or recovery code"
          submitLabel="Turn off two-factor sign-in"
          busy={disable.isPending}
          error={disable.error}
          onSubmit={setDisableCode}
        />
      )}
      <ConfirmDialog
        open={disableCode !== null}
        title="Turn two-factor sign-in off?"
        confirmLabel="Turn it off"
        busy={disable.isPending}
        onConfirm={() => {
          if (disableCode !== null) disable.mutate(disableCode);
        }}
        onClose={() => {
          setDisableCode(null);
        }}
      >
        <p>Signing in then needs only your password. Your recovery codes stop working.</p>
      </ConfirmDialog>
    </div>
  );
}

export function TwoFactor() {
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
  if (status.isPending) return <Loading label="Loading two-factor sign-in" />;
  if (status.isError) return <ErrorNotice error={status.error} retry={() => void status.refetch()} />;
  return status.data.enabled ? <Enabled onCodes={setCodes} /> : <Setup onCodes={setCodes} />;
}
