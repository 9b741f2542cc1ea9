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
import { useT } from '../../i18n/I18nProvider';

const perPage = 50;

const roles: readonly User['role'][] = ['owner', 'admin', 'operator', 'viewer'];

function RoleSelect({
  value,
  onChange,
  controlProps,
}: {
  value: AssignableRole;
  onChange: (role: AssignableRole) => void;
  controlProps: object;
}) {
  const { t } = useT();
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
          {t('role.name', { role })}
        </option>
      ))}
    </select>
  );
}

function CreateUserDialog({ onClose }: { onClose: () => void }) {
  const { t } = useT();
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
      title={t('users.addTitle')}
      mutation={create}
      onSubmit={() => {
        create.mutate();
      }}
      onClose={onClose}
      submitLabel={t('users.add')}
      pendingLabel={t('users.adding')}
      className="stack-form"
    >
      <TextField
        label={t('users.username')}
        problem={problems.username}
        hint={t('users.usernameHint')}
        autoFocus
        autoComplete="off"
        value={username}
        onChange={setUsername}
      />
      <TextField
        label={t('users.password')}
        problem={problems.password}
        hint={t('users.passwordHint', { min: limits.passwordMinLength })}
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={setPassword}
      />
      <FormField label={t('users.role')} problem={problems.role}>
        {(p) => <RoleSelect value={role} onChange={setRole} controlProps={p} />}
      </FormField>
    </FormDialog>
  );
}

type Change = { kind: 'role'; user: User } | { kind: 'password'; user: User };

function ChangeUserDialog({ change, onClose }: { change: Change; onClose: () => void }) {
  const { t } = useT();
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
          ? t('users.changeRoleTitle', { name: user.username })
          : t('users.resetTitle', { name: user.username })
      }
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={change.kind === 'role' ? t('users.changeRole') : t('users.resetPassword')}
      className="stack-form"
    >
      {change.kind === 'role' ? (
        <FormField
          label={t('users.role')}
          problem={problems.role}
          hint={t('users.roleHint', { description: t('users.roleDescription', { role }) })}
        >
          {(p) => <RoleSelect value={role} onChange={setRole} controlProps={p} />}
        </FormField>
      ) : (
        <TextField
          label={t('users.newPassword')}
          problem={problems.password}
          hint={t('users.newPasswordHint')}
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
  const { t } = useT();
  const name = removal.user.username;
  if (removal.kind === 'enable') {
    return <p>{t('users.enableText', { name })}</p>;
  }
  if (removal.kind === 'disable') {
    return (
      <ul>
        <li>{t('users.disableSignIn', { name })}</li>
        <li>{t('users.disableKeys')}</li>
        <li>{t('users.disableSchedules')}</li>
      </ul>
    );
  }
  return (
    <>
      <ul>
        <li>{t('users.deleteAccount', { name })}</li>
        <li>{t('users.deleteShared', { name })}</li>
        <li>{t('users.deleteAudit')}</li>
        <li>{t('users.deleteSchedules', { name })}</li>
        <li>{t('users.deleteSso', { name })}</li>
      </ul>
      <FormField label={t('users.heir')} problem={undefined}>
        {(p) => (
          <select
            {...p}
            value={heir}
            onChange={(e) => {
              onHeir(e.target.value);
            }}
          >
            <option value="">{t('users.nobody')}</option>
            {heirs.map((u) => (
              <option key={u.id} value={u.id}>
                {t('users.heirOption', { name: u.username, role: t('role.name', { role: u.role }) })}
              </option>
            ))}
          </select>
        )}
      </FormField>
    </>
  );
}

export function UsersPage() {
  const { t, rich } = useT();
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
        title={t('users.title')}
        action={{
          label: t('users.add'),
          onClick: () => {
            setCreating(true);
          },
        }}
      />
      <PagedQueryStates
        query={users}
        loadingLabel={t('users.loading')}
        empty={<EmptyState title={t('users.none')} />}
        page={page}
        perPage={perPage}
        onPage={setPage}
      >
        {(rows) => (
          <div className="table-wrap">
            <table className="data-table admin-table">
              <caption className="visually-hidden">{t('users.title')}</caption>
              <thead>
                <tr>
                  {(['username', 'role', 'created', 'changed'] as const).map((column) => (
                    <th key={column} scope="col">
                      {t('users.column', { column })}
                    </th>
                  ))}
                  <th scope="col">
                    <span className="visually-hidden">{t('common.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((u) => (
                  <tr key={u.id}>
                    <th scope="row">
                      <span translate="no">{u.username}</span>
                      {u.id === me.id && <span className="chip">{t('users.you')}</span>}
                      {u.disabled_at !== null && (
                        <span className="chip warn" data-testid={`disabled-${u.username}`}>
                          {t('users.disabled')}
                        </span>
                      )}
                    </th>
                    <td data-testid={`role-${u.username}`}>{t('role.name', { role: u.role })}</td>
                    <td>
                      <Time value={u.created_at} />
                    </td>
                    <td>
                      <Time value={u.updated_at} />
                    </td>
                    {/* Wraps: the four buttons pass the admin table's cell width in some languages. */}
                    <td className="cell-actions wrap">
                      {u.role !== 'owner' && (
                        <>
                          <button
                            type="button"
                            className="small"
                            aria-label={t('users.changeRoleNamed', { name: u.username })}
                            onClick={() => {
                              setChange({ kind: 'role', user: u });
                            }}
                          >
                            {t('users.changeRole')}
                          </button>
                          <button
                            type="button"
                            className="small"
                            aria-label={t('users.resetPasswordNamed', { name: u.username })}
                            onClick={() => {
                              setChange({ kind: 'password', user: u });
                            }}
                          >
                            {t('users.resetPassword')}
                          </button>
                          {u.id !== me.id && (
                            <>
                              <button
                                type="button"
                                className="small"
                                aria-label={t('users.toggleNamed', {
                                  kind: u.disabled_at === null ? 'disable' : 'enable',
                                  name: u.username,
                                })}
                                onClick={() => {
                                  act(u.disabled_at === null ? 'disable' : 'enable', u);
                                }}
                              >
                                {t('users.toggle', { kind: u.disabled_at === null ? 'disable' : 'enable' })}
                              </button>
                              <button
                                type="button"
                                className="small danger"
                                aria-label={t('common.deleteNamed', { name: u.username })}
                                onClick={() => {
                                  act('delete', u);
                                }}
                              >
                                {t('common.delete')}
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
        <h2 id="roles-title">{t('users.roles')}</h2>
        <dl className="role-list">
          {roles.map((role) => (
            <div key={role}>
              <dt>{t('role.name', { role })}</dt>
              <dd>{t('users.roleDescription', { role })}</dd>
            </div>
          ))}
        </dl>
        <p className="muted small">
          {rich('users.ownAccount', {
            link: <Link to="/account/security">{t('users.ownAccountLink')}</Link>,
          })}
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
        title={(r) => t('users.removalTitle', { kind: r.kind, name: r.user.username })}
        confirmLabel={removal ? t('users.removalConfirm', { kind: removal.kind }) : ''}
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
