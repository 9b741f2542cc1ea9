/** The signed-in user's own password (`POST /api/auth/password`): the current one, then the new one twice. */
import { useState, type SyntheticEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { hub } from '../../api/client';
import { fieldProblems } from '../../components/form-problems';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';

const newPasswordMinLength = 12;

export function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation({
    mutationFn: async () =>
      (await hub.call('auth.changePassword', { body: { current_password: current, new_password: next } }))
        .data,
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setAgain('');
    },
  });
  const problems = fieldProblems(change.error);
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
      {change.isSuccess && (
        <p className="notice ok" role="status">
          Password changed. Your other sessions have ended; this one goes on.
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
