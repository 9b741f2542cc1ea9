/** The signed-in user's own password (`POST /api/auth/password`): the current one, then the new one twice. */
import { useState, type SyntheticEvent } from 'react';
import { hub } from '../../api/client';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';

const newPasswordMinLength = 12;

export function PasswordForm() {
  const { t } = useT();
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
    notice: () => t('account.passwordChanged'),
  });
  const { problems } = change;
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const differs = next !== again;
    setMismatch(differs);
    if (!differs) change.mutate();
  };
  return (
    <form className="stack-form narrow" onSubmit={submit} noValidate aria-label={t('account.passwordForm')}>
      <TextField
        label={t('account.currentPassword')}
        problem={problems.current_password}
        type="password"
        autoComplete="current-password"
        value={current}
        onChange={setCurrent}
      />
      <TextField
        label={t('account.newPassword')}
        problem={problems.new_password}
        hint={t('account.newPasswordHint', { min: newPasswordMinLength })}
        type="password"
        autoComplete="new-password"
        value={next}
        onChange={setNext}
      />
      <TextField
        label={t('account.newPasswordAgain')}
        problem={mismatch ? t('account.mismatch') : undefined}
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
          {change.isPending ? t('account.changing') : t('account.changePassword')}
        </button>
      </div>
    </form>
  );
}
