import { errorText, SvcApiError } from '../api/client';
import { useT } from '../i18n/I18nProvider';

/** An error as the hub worded it (its message as it is), with its code and a retry when one helps. */
export function ErrorNotice({
  error,
  retry,
  fullPage = false,
}: {
  error: unknown;
  retry?: () => void;
  fullPage?: boolean;
}) {
  const { t } = useT();
  const code = error instanceof SvcApiError ? `${error.status} ${error.code}` : null;
  return (
    <div className={fullPage ? 'notice error full-page' : 'notice error'} role="alert">
      <p>
        {code && <strong className="error-code">{code}: </strong>}
        <span className="error-message">{errorText(error)}</span>
      </p>
      {retry && (
        <button type="button" onClick={retry}>
          {t('common.tryAgain')}
        </button>
      )}
    </div>
  );
}
