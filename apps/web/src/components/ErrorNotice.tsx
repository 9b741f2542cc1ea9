import { errorText, SvcApiError } from '../api/client';

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
  const code = error instanceof SvcApiError ? `${error.status} ${error.code}` : null;
  return (
    <div className={fullPage ? 'notice error full-page' : 'notice error'} role="alert">
      <p>
        {code && <strong className="error-code">{code}: </strong>}
        <span className="error-message">{errorText(error)}</span>
      </p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}
