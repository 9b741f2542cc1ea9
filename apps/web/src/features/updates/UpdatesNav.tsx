/** The Updates area's own tabs: the machines (fleet view), the runs, and a new run for roles that may start one. */
import { NavLink } from 'react-router';
import { useSession } from '../../app/session';

export function UpdatesNav() {
  const { canMutate } = useSession();
  return (
    <nav className="tabs" aria-label="Updates sections">
      <ul>
        <li>
          <NavLink to="/updates" end>
            Machines
          </NavLink>
        </li>
        <li>
          <NavLink to="/updates/runs" end>
            Runs
          </NavLink>
        </li>
        {canMutate && (
          <li>
            <NavLink to="/updates/runs/new" end>
              New run
            </NavLink>
          </li>
        )}
      </ul>
    </nav>
  );
}
