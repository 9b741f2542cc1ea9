/** The signed-in user's own password (`POST /api/auth/password`): the current one, then the new one twice. */
import { useState, type SyntheticEvent } from 'react';
import { hub } from '../../api/client';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';

const newPasswordMinLength = 12;

export function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const change = useResourceMutation({
    mutationFn: async () =>
      (await hub.call('auth.changePassword', { body: { current_password: current, new_password: next } }))
        .data,
    invalidates: [],
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setAgain('');
    },
    notice: () => 'Password changed. Your other sessions have ended; this one goes on.',
  });
  const { problems } = change;
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const differs = next !== again;
    setMismatch(differs);
    if (!differs) change.mutate();
  };
  return (
    <form className="stack-form narrow" onSubmit={submit} noValidate aria-label="Change your password">
      <TextField
        label="Current password"
        problem={problems.current_password}
        type="password"
        autoComplete="current-password"
        value={current}
        onChange={setCurrent}
      />
      <TextField
        label="New password"
        problem={problems.new_password}
        hint={`At least ${newPasswordMinLength} characters; a passphrase of a few words is good.`}
        type="password"
        autoComplete="new-password"
        value={next}
        onChange={setNext}
      />
      <TextField
        label="New password again"
        problem={mismatch ? 'does not match the new password' : undefined}
        type="password"
        autoComplete="new-password"
        value={again}
        onChange={setAgain}
      />
      {change.isError && <ErrorNotice error={change.error} />}
      {change.notice !== null && (
        <p className="notice ok" role="status">
          {change.notice}
        </p>
      )}
      <div>
        <button type="submit" className="primary" disabled={change.isPending || !current || !next}>
          {change.isPending ? 'Changing…' : 'Change password'}
        </button>
      </div>
    </form>
  );
}
