/**
 * The first sign-in with a generated password (the owner's at first run, or one an admin reset): until a
 * new one is set the hub refuses everything else, so this is the whole console for now.
 */
import { useState, type SyntheticEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { SessionUser } from '@svc/protocol';
import { hub } from '../../api/client';
import { fieldProblems } from '../../components/form-problems';
import { ErrorNotice } from '../../components/ErrorNotice';
import { endSession, fetchSession, sessionKey } from '../../app/session';
import { useT } from '../../i18n/I18nProvider';

const minPasswordLength = 12;

export function ChangePasswordPage({ user }: { user: SessionUser }) {
  const { t, rich } = useT();
  const client = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const mismatch = repeat.length > 0 && next !== repeat;
  const problems = fieldProblems(error);

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (next !== repeat) return;
    setBusy(true);
    setError(null);
    try {
      await hub.call('auth.changePassword', { body: { current_password: current, new_password: next } });
      client.setQueryData(sessionKey, await fetchSession());
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="auth-page" id="main">
      <div className="auth-card">
        <h1 className="auth-title">{t('changePassword.title')}</h1>
        <p>
          {rich('changePassword.intro', {
            username: <strong translate="no">{user.username}</strong>,
            owner: user.role === 'owner' ? 'yes' : 'no',
            file: <code>owner-credentials.txt</code>,
          })}
        </p>
        <form onSubmit={(e) => void submit(e)} aria-label={t('changePassword.form')}>
          <label>
            {t('changePassword.current')}
            <input
              name="current_password"
              type="password"
              autoComplete="current-password"
              required
              value={current}
              onChange={(e) => {
                setCurrent(e.target.value);
              }}
            />
            {problems.current_password && <span className="field-error">{problems.current_password}</span>}
          </label>
          <label>
            {t('changePassword.new', { min: minPasswordLength })}
            <input
              name="new_password"
              type="password"
              autoComplete="new-password"
              required
              minLength={minPasswordLength}
              value={next}
              onChange={(e) => {
                setNext(e.target.value);
              }}
            />
            {problems.new_password && <span className="field-error">{problems.new_password}</span>}
          </label>
          <label>
            {t('changePassword.again')}
            <input
              name="repeat_password"
              type="password"
              autoComplete="new-password"
              required
              aria-invalid={mismatch}
              value={repeat}
              onChange={(e) => {
                setRepeat(e.target.value);
              }}
            />
            {mismatch && <span className="field-error">{t('changePassword.differ')}</span>}
          </label>
          {error !== null && <ErrorNotice error={error} />}
          <button type="submit" className="primary" disabled={busy || mismatch}>
            {busy ? t('common.saving') : t('changePassword.submit')}
          </button>
          <button
            type="button"
            className="link-button"
            onClick={() => {
              void hub
                .call('auth.logout')
                .catch(() => undefined)
                .finally(() => {
                  endSession(client);
                });
            }}
          >
            {t('shell.signOut')}
          </button>
        </form>
      </div>
    </main>
  );
}
