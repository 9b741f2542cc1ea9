import { Link, useLocation } from 'react-router';

export function NotFoundPage() {
  const location = useLocation();
  return (
    <section className="page">
      <h1>Page not found</h1>
      <p>
        The console has no page at <code>{location.pathname}</code>.{' '}
        <Link to="/dashboard">Go to the dashboard</Link>.
      </p>
    </section>
  );
}
