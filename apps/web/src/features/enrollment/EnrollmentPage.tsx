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
import { enrollCommand } from './enroll-command';

const perPage = 50;

function tokenState(token: EnrollmentToken, now = Date.now()): string {
  if (token.revoked) return 'revoked';
  if (token.uses >= token.max_uses) return 'used up';
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
      title="Create an enrollment token"
      mutation={create}
      onSubmit={() => {
        create.mutate();
      }}
      onClose={onClose}
      submitLabel="Create token"
      pendingLabel="Creating…"
      className="stack-form"
    >
      <TextField
        label="Name"
        problem={problems.name}
        hint="What it is for: a machine, a batch, a site."
        autoFocus
        value={name}
        onChange={setName}
      />
      <TextField
        label="Lifetime in hours"
        problem={problems.expires_in_hours}
        hint="Empty: the hub's default (setting enrollment.token_default_expires_hours)."
        type="number"
        inputMode="numeric"
        min={1}
        value={hours}
        onChange={setHours}
      />
      <TextField
        label="Enrollments allowed"
        problem={problems.max_uses}
        hint="Empty: the hub's default (setting enrollment.token_default_max_uses)."
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
  const command = enrollCommand(window.location.origin, token.token, token.ca_fingerprint_sha256);
  return (
    <Dialog open title={`Token ${token.name} created`} onClose={onClose}>
      <div className="dialog-body stack-form">
        <p className="notice warning" role="note">
          The token is shown only this once. It allows {token.max_uses}{' '}
          {token.max_uses === 1 ? 'enrollment' : 'enrollments'} until <Time value={token.expires_at} />.
        </p>
        <CopyField label="Enroll command" value={command} multiline />
        <p className="muted small">
          {token.ca_fingerprint_sha256
            ? "Run it on the machine (svc-agent installed), then svc-agent run. --ca-fingerprint pins the hub's own CA, so the agent trusts this hub and no other."
            : "This hub's certificate is not from its own CA: the agent checks it against the machine's system CAs."}
        </p>
        <CopyField label="Token" value={token.token} />
      </div>
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}

export function EnrollmentPage() {
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
        title="Enrollment tokens"
        action={{
          label: 'Create token',
          onClick: () => {
            setCreating(true);
          },
        }}
      />
      <p className="muted">
        A machine joins the hub once with a token: <code>svc-agent enroll</code> exchanges it for its own
        credential. Tokens expire and allow a fixed number of enrollments.
      </p>
      <PagedQueryStates
        query={tokens}
        loadingLabel="Loading the enrollment tokens"
        empty={
          <EmptyState title="No enrollment tokens">
            <p>Create one to add a machine with an agent.</p>
          </EmptyState>
        }
        page={page}
        perPage={perPage}
        onPage={setPage}
      >
        {(rows) => (
          <div className="table-wrap">
            <table className="data-table admin-table">
              <caption className="visually-hidden">Enrollment tokens</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">State</th>
                  <th scope="col">Used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((token) => {
                  const state = tokenState(token);
                  return (
                    <tr key={token.id}>
                      <th scope="row">{token.name}</th>
                      <td>
                        <span className={`chip state-${state.replace(' ', '-')}`}>{state}</span>
                      </td>
                      <td>
                        {token.uses} of {token.max_uses}
                      </td>
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
                            aria-label={`Revoke ${token.name}`}
                            onClick={() => {
                              revoke.reset();
                              setRevoking(token);
                            }}
                          >
                            Revoke
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
        title={(record) => `Revoke the token ${record.name}?`}
        confirmLabel="Revoke token"
        mutation={revoke}
        onClose={() => {
          setRevoking(null);
        }}
      >
        {() => (
          <p>
            No machine can enroll with it any more. Machines that enrolled with it keep their own credentials.
          </p>
        )}
      </ConfirmMutationDialog>
    </section>
  );
}
