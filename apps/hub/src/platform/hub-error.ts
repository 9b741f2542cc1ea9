import { errorCatalog, type ErrorCode, type FieldProblem } from '@svc/protocol';

/** The one error services throw. The code fixes the HTTP status; the message defaults to the catalog's. */
export class HubError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: FieldProblem[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { details?: FieldProblem[]; headers?: Record<string, string> } = {},
  ) {
    super(message ?? errorCatalog[code].message);
    this.name = 'HubError';
    this.code = code;
    this.status = errorCatalog[code].status;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export function validationError(field: string, problem: string): HubError {
  return new HubError('validation', `${field}: ${problem}`, { details: [{ field, problem }] });
}
