/**
 * The signed-in user's own security, whatever their role: password and two-factor sign-in
 * (`/account/security`). What an admin does to other users is under Administration → Users.
 */
import { Navigate, Route, Routes } from 'react-router';
import { useSession } from '../../app/session';
import { PasswordForm } from './PasswordForm';
import { TwoFactor } from './TwoFactor';
import { useT } from '../../i18n/I18nProvider';
import '../admin/admin.css';

/** The sign-in method as the message's select value: `password+2fa` is no ICU key. */
function methodKey(method: string): string {
  return method === 'password+2fa' ? 'twoFactor' : method;
}

function SecurityPage() {
  const { user } = useSession();
  const { t, rich } = useT();
  return (
    <section className="page" aria-labelledby="security-title">
      <div className="page-header">
        <h1 id="security-title">{t('account.title')}</h1>
      </div>
      <p className="muted">
        {rich('account.signedInAs', {
          username: <strong translate="no">{user.username}</strong>,
          role: t('role.name', { role: user.role }),
          method: methodKey(user.auth_method),
        })}
      </p>
      <section className="panel" aria-labelledby="two-factor-title">
        <h2 id="two-factor-title">{t('account.twoFactorTitle')}</h2>
        <TwoFactor />
      </section>
      <section className="panel" aria-labelledby="password-title">
        <h2 id="password-title">{t('account.passwordTitle')}</h2>
        {user.auth_method === 'oidc' ? (
          <p className="muted">{t('account.oidcPassword')}</p>
        ) : (
          <PasswordForm />
        )}
      </section>
    </section>
  );
}

export function AccountPage() {
  return (
    <Routes>
      <Route index element={<Navigate to="/account/security" replace />} />
      <Route path="security" element={<SecurityPage />} />
      <Route path="*" element={<Navigate to="/account/security" replace />} />
    </Routes>
  );
}
