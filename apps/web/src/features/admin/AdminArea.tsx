/**
 * Administration (admins and the owner): API keys, users, enrollment tokens, TLS, runtime settings, the
 * audit log and the hub's status, each one page under /admin/. Anyone else who comes here sees that the area
 * is for admins; the hub refuses their requests anyway, so nothing here is a security boundary.
 */
import { Link, Navigate, NavLink, Route, Routes } from 'react-router';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { useT } from '../../i18n/I18nProvider';
import { AuditPage } from '../audit/AuditPage';
import { EnrollmentPage } from '../enrollment/EnrollmentPage';
import { HubStatusPage } from '../hub/HubStatusPage';
import { KeysPage } from '../keys/KeysPage';
import { MeshvpnPage } from '../meshvpn/MeshvpnPage';
import { PrometheusPage } from '../prometheus/PrometheusPage';
import { SettingsPage } from '../settings/SettingsPage';
import { TlsPage } from '../tls/TlsPage';
import { UsersPage } from '../users/UsersPage';
import './admin.css';

// Each section's name is `admin.section`'s branch of its path.
const sections = [
  { path: 'keys', element: <KeysPage /> },
  { path: 'users', element: <UsersPage /> },
  { path: 'enrollment', element: <EnrollmentPage /> },
  { path: 'tls', element: <TlsPage /> },
  { path: 'tailscale', element: <MeshvpnPage /> },
  { path: 'prometheus', element: <PrometheusPage /> },
  { path: 'settings', element: <SettingsPage /> },
  { path: 'audit', element: <AuditPage /> },
  { path: 'status', element: <HubStatusPage /> },
] as const;

function AdminOnly() {
  const { t, rich } = useT();
  const { user } = useSession();
  return (
    <section className="page" aria-labelledby="admin-only-title">
      <h1 id="admin-only-title">{t('admin.title')}</h1>
      <EmptyState title={t('admin.onlyTitle')}>
        <p>
          {rich('admin.onlyText', {
            username: <strong translate="no">{user.username}</strong>,
            role: <strong>{t('role.name', { role: user.role })}</strong>,
          })}
        </p>
        <p>
          <Link to="/dashboard">{t('admin.toDashboard')}</Link>
        </p>
      </EmptyState>
    </section>
  );
}

function SectionMissing() {
  const { t } = useT();
  return (
    <EmptyState title={t('admin.missing')}>
      <p>
        <Link to="/admin/keys">{t('admin.toKeys')}</Link>
      </p>
    </EmptyState>
  );
}

/** `/admin` itself: the first section. */
export function AdminIndex() {
  const { isAdmin } = useSession();
  return isAdmin ? <Navigate to="/admin/keys" replace /> : <AdminOnly />;
}

export function AdminArea() {
  const { t } = useT();
  const { isAdmin } = useSession();
  if (!isAdmin) return <AdminOnly />;
  return (
    <div className="admin">
      <nav className="sub-nav" aria-label={t('admin.nav')}>
        <ul>
          {sections.map((s) => (
            <li key={s.path}>
              <NavLink to={`/admin/${s.path}`}>{t('admin.section', { section: s.path })}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <Routes>
        <Route index element={<Navigate to="/admin/keys" replace />} />
        {sections.map((s) => (
          <Route key={s.path} path={s.path} element={s.element} />
        ))}
        <Route path="*" element={<SectionMissing />} />
      </Routes>
    </div>
  );
}
