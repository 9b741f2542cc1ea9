import { describe, expect, it } from 'vitest';
import { SvcApiError } from '@svc/sdk';
import { fieldProblems, formFieldOf, hasUnplacedProblem } from './form-problems';

function refusal(details?: { field: string; problem: string }[]): SvcApiError {
  return new SvcApiError(400, {
    status: 400,
    request_id: 'req_1',
    error: 'validation',
    message: 'The request is not valid.',
    ...(details ? { details } : {}),
  });
}

describe('fieldProblems', () => {
  it('puts each problem of a 400 under the top-level field of the body it names', () => {
    const error = refusal([
      { field: 'body.name', problem: 'must not be empty' },
      { field: 'body.ip_addresses.1', problem: 'is not an IP address' },
    ]);

    expect(fieldProblems(error)).toEqual({
      name: 'must not be empty',
      ip_addresses: 'is not an IP address',
    });
  });

  it('keeps the first problem when the hub names one field twice', () => {
    const error = refusal([
      { field: 'body.tags.0', problem: 'too long' },
      { field: 'body.tags.3', problem: 'repeated' },
    ]);

    expect(fieldProblems(error)).toEqual({ tags: 'too long' });
  });

  it('has no field problems for an error that is not the hub’s, or one without details', () => {
    expect(fieldProblems(new Error('network down'))).toEqual({});
    expect(fieldProblems(refusal())).toEqual({});
    expect(fieldProblems(null)).toEqual({});
  });
});

describe('formFieldOf', () => {
  it('reads a path without the body prefix as it stands', () => {
    expect(formFieldOf('query.per_page')).toBe('query');
    expect(formFieldOf('events')).toBe('events');
  });
});

describe('hasUnplacedProblem', () => {
  it('wants a notice for an error no field can show', () => {
    expect(
      hasUnplacedProblem(
        new SvcApiError(409, { status: 409, request_id: 'r', error: 'conflict', message: 'taken' }),
      ),
    ).toBe(true);
    expect(hasUnplacedProblem(new Error('offline'))).toBe(true);
  });

  it('wants none when the fields show the problems, or nothing failed', () => {
    expect(hasUnplacedProblem(refusal([{ field: 'body.cron', problem: 'bad' }]))).toBe(false);
    expect(hasUnplacedProblem(null)).toBe(false);
  });
});
