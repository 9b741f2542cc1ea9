/**
 * The signed-in user's own security, whatever their role: password and two-factor sign-in
 * (`/account/security`). What an admin does to other users is under Administration → Users.
 */
import { Navigate, Route, Routes } from 'react-router';
import { useSession } from '../../app/session';
import { PasswordForm } from './PasswordForm';
import { TwoFactor } from './TwoFactor';
import '../admin/admin.css';

function methodText(method: string): string {
  if (method === 'password+2fa') return 'with a password and a second factor';
  if (method === 'oidc') return 'through your identity provider';
  return `with a ${method}`;
}

function SecurityPage() {
  const { user } = useSession();
  return (
    <section className="page" aria-labelledby="security-title">
      <div className="page-header">
        <h1 id="security-title">Account security</h1>
      </div>
      <p className="muted">
        Signed in as <strong>{user.username}</strong> ({user.role}) {methodText(user.auth_method)}.
      </p>
      <section className="panel" aria-labelledby="two-factor-title">
        <h2 id="two-factor-title">Two-factor sign-in</h2>
        <TwoFactor />
      </section>
      <section className="panel" aria-labelledby="password-title">
        <h2 id="password-title">Password</h2>
        {user.auth_method === 'oidc' ? (
          <p className="muted">You sign in through your identity provider: change your password there.</p>
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
