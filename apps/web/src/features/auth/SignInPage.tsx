/**
 * Sign-in (and the language menu): username and password, then a TOTP code or a recovery code when two-factor sign-in is on; the
 * single sign-on button when the hub has OIDC configured (the hub says so in index.html). The hub's refusals
 * are shown as it words them.
 */
import { useState, type SyntheticEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { SessionUser } from '@svc/protocol';
import { hub } from '../../api/client';
import { ErrorNotice } from '../../components/ErrorNotice';
import { sessionKey } from '../../app/session';
import { useT } from '../../i18n/I18nProvider';
import { LanguageSelect } from '../../i18n/LanguageSelect';

/** Whether the hub offers single sign-on (a meta tag the hub writes into index.html). */
function oidcEnabled(): boolean {
  return document.querySelector('meta[name="svc-oidc"]')?.getAttribute('content') === 'enabled';
}

type Step = { kind: 'password' } | { kind: 'second-factor'; challengeToken: string; recovery: boolean };

export function SignInPage() {
  const { t, rich } = useT();
  const client = useQueryClient();
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const signedIn = (user: SessionUser) => {
    client.setQueryData(sessionKey, user);
  };

  const submitPassword = async (event: SyntheticEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { data } = await hub.call('auth.login', { body: { username, password } });
      if (data.requires_2fa && data.challenge_token) {
        setStep({ kind: 'second-factor', challengeToken: data.challenge_token, recovery: false });
        setPassword('');
      } else if (data.user) {
        signedIn(data.user);
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const submitCode = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (step.kind !== 'second-factor') return;
    setBusy(true);
    setError(null);
    try {
      const { data } = await hub.call('auth.login2fa', {
        body: { challenge_token: step.challengeToken, code: code.trim() },
      });
      if (data.user) signedIn(data.user);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="auth-page" id="main">
      <div className="auth-card">
        <LanguageSelect className="auth-language" />
        <h1 className="auth-title">
          <img src="/favicon.svg" alt="" width="28" height="28" /> <span translate="no">svc hub</span>
        </h1>
        {step.kind === 'password' ? (
          <form onSubmit={(e) => void submitPassword(e)} aria-label={t('signIn.title')}>
            <h2>{t('signIn.title')}</h2>
            <label>
              {t('signIn.username')}
              <input
                name="username"
                autoComplete="username"
                required
                autoFocus
                value={username}
                onChange={(e) => {
                  setUsername(e.target.value);
                }}
              />
            </label>
            <label>
              {t('signIn.password')}
              <input
                name="password"
                type="password"
                autoComplete="current-password"
                required
                value={password}
                onChange={(e) => {
                  setPassword(e.target.value);
                }}
              />
            </label>
            {error !== null && <ErrorNotice error={error} />}
            <button type="submit" className="primary" disabled={busy}>
              {busy ? t('signIn.signingIn') : t('signIn.title')}
            </button>
          </form>
        ) : (
          <form onSubmit={(e) => void submitCode(e)} aria-label={t('signIn.secondFactor')}>
            <h2>{t('signIn.twoFactorTitle')}</h2>
            <label>
              {step.recovery ? t('signIn.recoveryCode') : t('signIn.authenticatorCode')}
              <input
                name="code"
                autoComplete="one-time-code"
                inputMode={step.recovery ? 'text' : 'numeric'}
                required
                autoFocus
                minLength={6}
                maxLength={32}
                value={code}
                onChange={(e) => {
                  setCode(e.target.value);
                }}
              />
            </label>
            {error !== null && <ErrorNotice error={error} />}
            <button type="submit" className="primary" disabled={busy}>
              {busy ? t('signIn.checking') : t('signIn.verify')}
            </button>
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setStep({ ...step, recovery: !step.recovery });
                setCode('');
                setError(null);
              }}
            >
              {step.recovery ? t('signIn.useAuthenticator') : t('signIn.useRecovery')}
            </button>
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setStep({ kind: 'password' });
                setCode('');
                setError(null);
              }}
            >
              {t('signIn.startAgain')}
            </button>
          </form>
        )}
        {oidcEnabled() && step.kind === 'password' && (
          <div className="oidc">
            <span className="muted">{t('signIn.or')}</span>
            <a className="button" href="/api/auth/oidc/start">
              {t('signIn.sso')}
            </a>
          </div>
        )}
        <details className="first-run">
          <summary>{t('signIn.firstRunSummary')}</summary>
          <p>
            {rich('signIn.firstRunText', {
              owner: <code>owner</code>,
              file: <code>owner-credentials.txt</code>,
              dataDir: <code>data/</code>,
              npmStart: <code>npm start</code>,
              envVar: <code>SVC_DATA_DIR</code>,
            })}
          </p>
        </details>
      </div>
    </main>
  );
}
