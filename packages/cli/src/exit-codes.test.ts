import { describe, expect, it } from 'vitest';
import { ExecStreamBrokenError, SvcApiError } from '@svc/sdk';
import { CliError, describeFailure, exitCodeForStatus, exitCodes } from './exit-codes.js';

function apiError(status: number, error: string, message: string) {
  return new SvcApiError(status, { request_id: 'req_1', error, message, status } as never);
}

describe('exit codes', () => {
  it('maps the hub statuses to the documented codes', () => {
    expect([401, 403, 404, 400, 413, 409, 429, 500, 502, 503].map(exitCodeForStatus)).toEqual([
      3, 3, 4, 2, 2, 6, 6, 7, 5, 5,
    ]);
  });

  it("shows the hub's message and a hint, with the status's code", () => {
    const failure = describeFailure(apiError(401, 'unauthorized', 'The key is revoked.'), 'https://hub:8443');
    expect(failure).toEqual({
      message: 'the hub refused: The key is revoked.',
      hint: expect.stringContaining('svc login') as string,
      exitCode: exitCodes.auth,
      hubError: { code: 'unauthorized', requestId: 'req_1' },
    });
    expect(describeFailure(apiError(409, 'asset_offline', 'The asset is offline.'), null)).toMatchObject({
      exitCode: exitCodes.refused,
      hint: expect.stringContaining('svc assets show') as string,
    });
  });

  it('lists the field problems of a validation error', () => {
    const error = new SvcApiError(400, {
      request_id: 'req_1',
      error: 'validation',
      message: 'The request is not valid.',
      status: 400,
      details: [{ field: 'timeout', problem: 'must be <= 3600' }],
    });
    expect(describeFailure(error, null).message).toBe(
      'the hub refused: The request is not valid. (timeout: must be <= 3600)',
    );
  });

  it('says the hub is unreachable, or not trusted, with exit code 5', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(describeFailure(refused, 'https://127.0.0.1:1')).toMatchObject({
      message: 'cannot reach https://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1',
      exitCode: exitCodes.unreachable,
    });
    const untrusted = Object.assign(new Error('self-signed certificate in certificate chain'), {
      code: 'SELF_SIGNED_CERT_IN_CHAIN',
    });
    expect(describeFailure(untrusted, 'https://hub')).toMatchObject({
      exitCode: exitCodes.unreachable,
      hint: expect.stringContaining('--ca') as string,
    });
    expect(describeFailure(new ExecStreamBrokenError(2), null).exitCode).toBe(exitCodes.unreachable);
  });

  it("keeps the CLI's own errors as they are", () => {
    expect(describeFailure(new CliError('no asset "x"', exitCodes.notFound, 'look'), null)).toEqual({
      message: 'no asset "x"',
      hint: 'look',
      exitCode: 4,
    });
  });
});
