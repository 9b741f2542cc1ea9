/**
 * Enrollment tokens: create (name, lifetime, uses), list, revoke. A new token is shown once, inside the exact
 * `svc-agent enroll …` command for this hub (its address and CA fingerprint included), with a copy button.
 */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { EnrollmentToken, EnrollmentTokenCreate, EnrollmentTokenCreated } from '@svc/protocol';
import { hub } from '../../api/client';
import { CopyField } from '../../components/CopyButton';
import { Dialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { FormDialog } from '../../components/FormDialog';
import { TextField } from '../../components/TextField';
import { Time } from '../../components/Time';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { PageHeader } from '../../components/PageHeader';
import { PagedQueryStates } from '../../components/QueryStates';
import { useT } from '../../i18n/I18nProvider';
import { enrollCommand } from './enroll-command';

const perPage = 50;

function tokenState(token: EnrollmentToken, now = Date.now()): 'revoked' | 'usedUp' | 'expired' | 'active' {
  if (token.revoked) return 'revoked';
  if (token.uses >= token.max_uses) return 'usedUp';
  if (new Date(token.expires_at).getTime() <= now) return 'expired';
  return 'active';
}

/** A whole number from the input, or undefined when left empty (the hub's default applies). */
function optionalInteger(text: string): number | undefined {
  const trimmed = text.trim();
  return trimmed === '' ? undefined : Number(trimmed);
}

function CreateTokenDialog({
  onClose,
  onCreated,
}: {
  onClose: () => void;
  onCreated: (token: EnrollmentTokenCreated) => void;
}) {
  const { t } = useT();
  const [name, setName] = useState('');
  const [hours, setHours] = useState('');
  const [uses, setUses] = useState('');
  const create = useResourceMutation({
    mutationFn: async () => {
      const expires = optionalInteger(hours);
      const maxUses = optionalInteger(uses);
      const body: EnrollmentTokenCreate = {
        name: name.trim(),
        ...(expires !== undefined ? { expires_in_hours: expires } : {}),
        ...(maxUses !== undefined ? { max_uses: maxUses } : {}),
      };
      return (await hub.call('enrollment.create', { body })).data;
    },
    invalidates: [['enrollment-tokens']],
    onSuccess: (token) => {
      onCreated(token);
      onClose();
    },
  });
  const { problems } = create;
  return (
    <FormDialog
      title={t('enrollment.createTitle')}
      mutation={create}
      onSubmit={() => {
        create.mutate();
      }}
      onClose={onClose}
      submitLabel={t('enrollment.create')}
      pendingLabel={t('enrollment.creating')}
      className="stack-form"
    >
      <TextField
        label={t('enrollment.name')}
        problem={problems.name}
        hint={t('enrollment.nameHint')}
        autoFocus
        value={name}
        onChange={setName}
      />
      <TextField
        label={t('enrollment.lifetime')}
        problem={problems.expires_in_hours}
        hint={t('enrollment.lifetimeHint', { setting: 'enrollment.token_default_expires_hours' })}
        type="number"
        inputMode="numeric"
        min={1}
        value={hours}
        onChange={setHours}
      />
      <TextField
        label={t('enrollment.uses')}
        problem={problems.max_uses}
        hint={t('enrollment.usesHint', { setting: 'enrollment.token_default_max_uses' })}
        type="number"
        inputMode="numeric"
        min={1}
        value={uses}
        onChange={setUses}
      />
    </FormDialog>
  );
}

function CreatedTokenDialog({ token, onClose }: { token: EnrollmentTokenCreated; onClose: () => void }) {
  const { t, rich } = useT();
  const command = enrollCommand(window.location.origin, token.token, token.ca_fingerprint_sha256);
  return (
    <Dialog open title={t('enrollment.createdTitle', { name: token.name })} onClose={onClose}>
      <div className="dialog-body stack-form">
        <p className="notice warning" role="note">
          {rich('enrollment.shownOnce', { uses: token.max_uses, until: <Time value={token.expires_at} /> })}
        </p>
        <CopyField label={t('enrollment.command')} value={command} multiline />
        <p className="muted small">
          {token.ca_fingerprint_sha256
            ? rich('enrollment.runOwnCa', {
                run: <code>svc-agent run</code>,
                flag: <code>--ca-fingerprint</code>,
              })
            : t('enrollment.runSystemCa')}
        </p>
        <CopyField label={t('enrollment.token')} value={token.token} />
      </div>
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose}>
          {t('enrollment.done')}
        </button>
      </div>
    </Dialog>
  );
}

export function EnrollmentPage() {
  const { t, rich } = useT();
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<EnrollmentTokenCreated | null>(null);
  const [revoking, setRevoking] = useState<EnrollmentToken | null>(null);
  const tokens = useQuery({
    queryKey: ['enrollment-tokens', 'list', page],
    queryFn: () => hub.call('enrollment.list', { query: { page, per_page: perPage } }),
    placeholderData: keepPreviousData,
  });
  const revoke = useResourceMutation({
    mutationFn: async (token: EnrollmentToken) =>
      (await hub.call('enrollment.revoke', { params: { id: token.id } })).data,
    invalidates: [['enrollment-tokens']],
    onSuccess: () => {
      setRevoking(null);
    },
  });

  return (
    <section className="page" aria-labelledby="enrollment-title">
      <PageHeader
        titleId="enrollment-title"
        title={t('enrollment.title')}
        action={{
          label: t('enrollment.create'),
          onClick: () => {
            setCreating(true);
          },
        }}
      />
      <p className="muted">{rich('enrollment.intro', { command: <code>svc-agent enroll</code> })}</p>
      <PagedQueryStates
        query={tokens}
        loadingLabel={t('enrollment.loading')}
        empty={
          <EmptyState title={t('enrollment.none')}>
            <p>{t('enrollment.noneText')}</p>
          </EmptyState>
        }
        page={page}
        perPage={perPage}
        onPage={setPage}
      >
        {(rows) => (
          <div className="table-wrap">
            <table className="data-table admin-table">
              <caption className="visually-hidden">{t('enrollment.title')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('enrollment.name')}</th>
                  <th scope="col">{t('enrollment.stateHeader')}</th>
                  <th scope="col">{t('enrollment.used')}</th>
                  <th scope="col">{t('enrollment.expires')}</th>
                  <th scope="col">{t('enrollment.created')}</th>
                  <th scope="col">
                    <span className="visually-hidden">{t('common.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((token) => {
                  const state = tokenState(token);
                  return (
                    <tr key={token.id}>
                      <th scope="row" translate="no">
                        {token.name}
                      </th>
                      <td>
                        <span className={`chip state-${state === 'usedUp' ? 'used-up' : state}`}>
                          {t('enrollment.state', { state })}
                        </span>
                      </td>
                      <td>{t('enrollment.usedOf', { uses: token.uses, max: token.max_uses })}</td>
                      <td>
                        <Time value={token.expires_at} />
                      </td>
                      <td>
                        <Time value={token.created_at} />
                      </td>
                      <td className="cell-actions">
                        {state === 'active' && (
                          <button
                            type="button"
                            className="small danger"
                            aria-label={t('enrollment.revokeNamed', { name: token.name })}
                            onClick={() => {
                              revoke.reset();
                              setRevoking(token);
                            }}
                          >
                            {t('enrollment.revoke')}
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </PagedQueryStates>
      {creating && (
        <CreateTokenDialog
          onClose={() => {
            setCreating(false);
          }}
          onCreated={setCreated}
        />
      )}
      {created && (
        <CreatedTokenDialog
          token={created}
          onClose={() => {
            setCreated(null);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={revoking}
        title={(record) => t('enrollment.revokeTitle', { name: record.name })}
        confirmLabel={t('enrollment.revokeToken')}
        mutation={revoke}
        onClose={() => {
          setRevoking(null);
        }}
      >
        {() => <p>{t('enrollment.revokeText')}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
