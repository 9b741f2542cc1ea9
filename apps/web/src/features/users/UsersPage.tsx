/**
 * Local users of the console: list, create, change a role, reset a password, disable, enable and delete
 * (decision 0087; each behind a dialog saying what happens to the user's sessions, keys and schedules). The
 * owner's role is reserved and cannot be given, changed, disabled or deleted here.
 */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { assignableRoles, limits, type AssignableRole, type User } from '@svc/protocol';
import { hub } from '../../api/client';
import { PagedQueryStates } from '../../components/QueryStates';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { FormDialog } from '../../components/FormDialog';
import { FormField } from '../../components/FormField';
import { TextField } from '../../components/TextField';
import { Time } from '../../components/Time';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { PageHeader } from '../../components/PageHeader';

const perPage = 50;

const roleDescriptions: Record<User['role'], string> = {
  owner: 'everything; reserved for the account made at first run (break-glass)',
  admin: 'everything but the owner’s reserved rights: keys, users, settings, TLS, enrollment',
  operator: 'reads and runs the fleet: commands, files, services, power; no administration',
  viewer: 'reads only: every change is refused',
};

function RoleSelect({
  value,
  onChange,
  controlProps,
}: {
  value: AssignableRole;
  onChange: (role: AssignableRole) => void;
  controlProps: object;
}) {
  return (
    <select
      {...controlProps}
      value={value}
      onChange={(e) => {
        onChange(e.target.value as AssignableRole);
      }}
    >
      {assignableRoles.map((role) => (
        <option key={role} value={role}>
          {role}
        </option>
      ))}
    </select>
  );
}

function CreateUserDialog({ onClose }: { onClose: () => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<AssignableRole>('operator');
  const create = useResourceMutation({
    mutationFn: async () =>
      (await hub.call('users.create', { body: { username: username.trim(), password, role } })).data,
    invalidates: [['users']],
    onSuccess: onClose,
  });
  const { problems } = create;
  return (
    <FormDialog
      title="Add a user"
      mutation={create}
      onSubmit={() => {
        create.mutate();
      }}
      onClose={onClose}
      submitLabel="Add user"
      pendingLabel="Adding…"
      className="stack-form"
    >
      <TextField
        label="Username"
        problem={problems.username}
        hint="Letters, digits and . _ @ -"
        autoFocus
        autoComplete="off"
        value={username}
        onChange={setUsername}
      />
      <TextField
        label="Password"
        problem={problems.password}
        hint={`At least ${limits.passwordMinLength} characters; tell it to the user over a safe channel.`}
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={setPassword}
      />
      <FormField label="Role" problem={problems.role}>
        {(p) => <RoleSelect value={role} onChange={setRole} controlProps={p} />}
      </FormField>
    </FormDialog>
  );
}

type Change = { kind: 'role'; user: User } | { kind: 'password'; user: User };

function ChangeUserDialog({ change, onClose }: { change: Change; onClose: () => void }) {
  const { user } = change;
  const [role, setRole] = useState<AssignableRole>(user.role === 'owner' ? 'admin' : user.role);
  const [password, setPassword] = useState('');
  const save = useResourceMutation({
    mutationFn: async () =>
      (
        await hub.call('users.update', {
          params: { id: user.id },
          body: change.kind === 'role' ? { role } : { password },
        })
      ).data,
    invalidates: [['users']],
    onSuccess: onClose,
  });
  const { problems } = save;
  return (
    <FormDialog
      title={
        change.kind === 'role'
          ? `Change the role of ${user.username}`
          : `Reset the password of ${user.username}`
      }
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={change.kind === 'role' ? 'Change role' : 'Reset password'}
      className="stack-form"
    >
      {change.kind === 'role' ? (
        <FormField
          label="Role"
          problem={problems.role}
          hint={`${roleDescriptions[role]}. The user's sessions end: they sign in again under the new role.`}
        >
          {(p) => <RoleSelect value={role} onChange={setRole} controlProps={p} />}
        </FormField>
      ) : (
        <TextField
          label="New password"
          problem={problems.password}
          hint="The user's sessions end; they sign in with this password."
          type="password"
          autoComplete="new-password"
          autoFocus
          value={password}
          onChange={setPassword}
        />
      )}
    </FormDialog>
  );
}

type Removal = { kind: 'disable' | 'enable' | 'delete'; user: User };

const removalTitles: Record<Removal['kind'], (user: User) => string> = {
  disable: (u) => `Disable ${u.username}?`,
  enable: (u) => `Enable ${u.username}?`,
  delete: (u) => `Delete ${u.username}?`,
};

const removalLabels: Record<Removal['kind'], string> = {
  disable: 'Disable user',
  enable: 'Enable user',
  delete: 'Delete user',
};

/** What happens, spelled out before it does (decision 0087). */
function RemovalConsequences({
  removal,
  heirs,
  heir,
  onHeir,
}: {
  removal: Removal;
  heirs: readonly User[];
  heir: string;
  onHeir: (id: string) => void;
}) {
  const name = removal.user.username;
  if (removal.kind === 'enable') {
    return (
      <p>
        {name} can sign in again. Their API keys work again, and schedules that run as them run again from
        their next tick.
      </p>
    );
  }
  if (removal.kind === 'disable') {
    return (
      <ul>
        <li>{name} cannot sign in; every console session they have ends now.</li>
        <li>Their API keys answer 401 until they are enabled again (the keys are kept).</li>
        <li>Schedules that run as them are refused at each tick, with the reason, until then.</li>
      </ul>
    );
  }
  return (
    <>
      <ul>
        <li>
          {name}’s account, console sessions, API keys, phone passkeys and push subscriptions, and personal
          terminal snippets and bookmarks are removed for good.
        </li>
        <li>
          Their shared snippets stay for the others: they go to the user chosen below, or else stay under{' '}
          {name}’s id, still changed by admins.
        </li>
        <li>The audit trail keeps everything they did, under their id and name.</li>
        <li>
          If schedules run as {name}, the delete is refused unless you choose who runs them from now on (never
          with more rights than {name} had).
        </li>
        <li>
          An account made by single sign-on is made anew, empty, if {name} signs in there again: to keep them
          out, disable them instead, or remove them at the identity provider.
        </li>
      </ul>
      <FormField label="Schedules and shared snippets go to" problem={undefined}>
        {(p) => (
          <select
            {...p}
            value={heir}
            onChange={(e) => {
              onHeir(e.target.value);
            }}
          >
            <option value="">nobody: refuse if schedules run as them</option>
            {heirs.map((u) => (
              <option key={u.id} value={u.id}>
                {u.username} ({u.role})
              </option>
            ))}
          </select>
        )}
      </FormField>
    </>
  );
}

export function UsersPage() {
  const { user: me } = useSession();
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [change, setChange] = useState<Change | null>(null);
  const [removal, setRemoval] = useState<Removal | null>(null);
  const [heir, setHeir] = useState('');
  const users = useQuery({
    queryKey: ['users', 'list', page],
    queryFn: () => hub.call('users.list', { query: { page, per_page: perPage } }),
    placeholderData: keepPreviousData,
  });
  const remove = useResourceMutation({
    mutationFn: async ({ kind, user }: Removal) => {
      const params = { id: user.id };
      if (kind === 'disable') return (await hub.call('users.disable', { params })).data;
      if (kind === 'enable') return (await hub.call('users.enable', { params })).data;
      return (await hub.call('users.delete', { params, query: heir ? { reassign_to: heir } : {} })).data;
    },
    invalidates: [['users']],
    onSuccess: () => {
      setRemoval(null);
    },
  });
  const heirs = (users.data?.data ?? []).filter(
    (u) => u.disabled_at === null && u.id !== removal?.user.id && u.role !== 'viewer',
  );
  const act = (kind: Removal['kind'], user: User) => {
    setHeir('');
    setRemoval({ kind, user });
  };

  return (
    <section className="page" aria-labelledby="users-title">
      <PageHeader
        titleId="users-title"
        title="Users"
        action={{
          label: 'Add user',
          onClick: () => {
            setCreating(true);
          },
        }}
      />
      <PagedQueryStates
        query={users}
        loadingLabel="Loading the users"
        empty={<EmptyState title="No users" />}
        page={page}
        perPage={perPage}
        onPage={setPage}
      >
        {(rows) => (
          <div className="table-wrap">
            <table className="data-table admin-table">
              <caption className="visually-hidden">Users</caption>
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Role</th>
                  <th scope="col">Created</th>
                  <th scope="col">Changed</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((u) => (
                  <tr key={u.id}>
                    <th scope="row">
                      {u.username}
                      {u.id === me.id && <span className="chip">you</span>}
                      {u.disabled_at !== null && (
                        <span className="chip warn" data-testid={`disabled-${u.username}`}>
                          disabled
                        </span>
                      )}
                    </th>
                    <td data-testid={`role-${u.username}`}>{u.role}</td>
                    <td>
                      <Time value={u.created_at} />
                    </td>
                    <td>
                      <Time value={u.updated_at} />
                    </td>
                    <td className="cell-actions">
                      {u.role !== 'owner' && (
                        <>
                          <button
                            type="button"
                            className="small"
                            aria-label={`Change role of ${u.username}`}
                            onClick={() => {
                              setChange({ kind: 'role', user: u });
                            }}
                          >
                            Change role
                          </button>
                          <button
                            type="button"
                            className="small"
                            aria-label={`Reset password of ${u.username}`}
                            onClick={() => {
                              setChange({ kind: 'password', user: u });
                            }}
                          >
                            Reset password
                          </button>
                          {u.id !== me.id && (
                            <>
                              <button
                                type="button"
                                className="small"
                                aria-label={`${u.disabled_at === null ? 'Disable' : 'Enable'} ${u.username}`}
                                onClick={() => {
                                  act(u.disabled_at === null ? 'disable' : 'enable', u);
                                }}
                              >
                                {u.disabled_at === null ? 'Disable' : 'Enable'}
                              </button>
                              <button
                                type="button"
                                className="small danger"
                                aria-label={`Delete ${u.username}`}
                                onClick={() => {
                                  act('delete', u);
                                }}
                              >
                                Delete
                              </button>
                            </>
                          )}
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedQueryStates>
      <section className="panel" aria-labelledby="roles-title">
        <h2 id="roles-title">Roles</h2>
        <dl className="role-list">
          {(Object.keys(roleDescriptions) as User['role'][]).map((role) => (
            <div key={role}>
              <dt>{role}</dt>
              <dd>{roleDescriptions[role]}</dd>
            </div>
          ))}
        </dl>
        <p className="muted small">
          Your own password and two-factor sign-in are under <Link to="/account/security">your account</Link>.
        </p>
      </section>
      {creating && (
        <CreateUserDialog
          onClose={() => {
            setCreating(false);
          }}
        />
      )}
      {change && (
        <ChangeUserDialog
          key={`${change.kind}-${change.user.id}`}
          change={change}
          onClose={() => {
            setChange(null);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={removal}
        title={(r) => removalTitles[r.kind](r.user)}
        confirmLabel={removal ? removalLabels[removal.kind] : ''}
        mutation={remove}
        onClose={() => {
          setRemoval(null);
        }}
      >
        {(r) => <RemovalConsequences removal={r} heirs={heirs} heir={heir} onHeir={setHeir} />}
      </ConfirmMutationDialog>
    </section>
  );
}
