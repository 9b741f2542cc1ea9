import { Link, useLocation } from 'react-router';
import { useT } from '../i18n/I18nProvider';

export function NotFoundPage() {
  const { t, rich } = useT();
  const location = useLocation();
  return (
    <section className="page">
      <h1>{t('notFound.title')}</h1>
      <p>
        {rich('notFound.text', {
          path: <code>{location.pathname}</code>,
          link: <Link to="/dashboard">{t('notFound.link')}</Link>,
        })}
      </p>
    </section>
  );
}
