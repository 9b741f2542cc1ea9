/** The Updates area's own tabs: the machines (fleet view), the runs, and a new run for roles that may start one. */
import { NavLink } from 'react-router';
import { useSession } from '../../app/session';
import { useT } from '../../i18n/I18nProvider';

export function UpdatesNav() {
  const { t } = useT();
  const { canMutate } = useSession();
  return (
    <nav className="tabs" aria-label={t('updates.sections')}>
      <ul>
        <li>
          <NavLink to="/updates" end>
            {t('updates.tab', { tab: 'machines' })}
          </NavLink>
        </li>
        <li>
          <NavLink to="/updates/runs" end>
            {t('updates.tab', { tab: 'runs' })}
          </NavLink>
        </li>
        {canMutate && (
          <li>
            <NavLink to="/updates/runs/new" end>
              {t('updates.tab', { tab: 'new' })}
            </NavLink>
          </li>
        )}
      </ul>
    </nav>
  );
}
