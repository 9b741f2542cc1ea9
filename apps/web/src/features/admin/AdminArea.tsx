/**
 * Administration (admins and the owner): API keys, users, enrollment tokens, TLS, runtime settings, the
 * audit log and the hub's status, each one page under /admin/. Anyone else who comes here sees that the area
 * is for admins; the hub refuses their requests anyway, so nothing here is a security boundary.
 */
import { Link, Navigate, NavLink, Route, Routes } from 'react-router';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
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

const sections = [
  { path: 'keys', label: 'API keys', element: <KeysPage /> },
  { path: 'users', label: 'Users', element: <UsersPage /> },
  { path: 'enrollment', label: 'Enrollment', element: <EnrollmentPage /> },
  { path: 'tls', label: 'TLS', element: <TlsPage /> },
  { path: 'tailscale', label: 'Tailscale', element: <MeshvpnPage /> },
  { path: 'prometheus', label: 'Prometheus', element: <PrometheusPage /> },
  { path: 'settings', label: 'Settings', element: <SettingsPage /> },
  { path: 'audit', label: 'Audit log', element: <AuditPage /> },
  { path: 'status', label: 'Hub status', element: <HubStatusPage /> },
] as const;

function AdminOnly() {
  const { user } = useSession();
  return (
    <section className="page" aria-labelledby="admin-only-title">
      <h1 id="admin-only-title">Administration</h1>
      <EmptyState title="Admin only">
        <p>
          This area is for admins. You are signed in as <strong>{user.username}</strong> with the role{' '}
          <strong>{user.role}</strong>, and the hub refuses its requests to you.
        </p>
        <p>
          <Link to="/dashboard">Go to the dashboard</Link>
        </p>
      </EmptyState>
    </section>
  );
}

function SectionMissing() {
  return (
    <EmptyState title="No such administration page">
      <p>
        <Link to="/admin/keys">Go to the API keys</Link>
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
  const { isAdmin } = useSession();
  if (!isAdmin) return <AdminOnly />;
  return (
    <div className="admin">
      <nav className="sub-nav" aria-label="Administration">
        <ul>
          {sections.map((s) => (
            <li key={s.path}>
              <NavLink to={`/admin/${s.path}`}>{s.label}</NavLink>
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
