/**
 * The one error a handler throws: a code from the protocol's agent error catalog and a message a person can
 * act on. The dispatcher turns it into `{ok: false, error}`; any other exception becomes `failed`.
 */
import type { AgentErrorCode } from '@svc/protocol';

export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AgentError';
  }
}

/** Maps a filesystem or process errno to the catalog; `subject` names the thing (a path, a pid). */
export function agentErrorFromErrno(error: unknown, subject: string): AgentError {
  if (error instanceof AgentError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  switch (code) {
    case 'ENOENT':
      return new AgentError('not_found', `${subject}: no such file or directory`);
    case 'ESRCH':
      return new AgentError('not_found', `${subject}: no such process`);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new AgentError('permission_denied', `${subject}: permission denied`);
    case 'EEXIST':
    case 'ERR_FS_CP_EEXIST':
      return new AgentError('exists', `${subject}: already exists`);
    case 'EISDIR':
    case 'ERR_FS_EISDIR':
      return new AgentError('is_directory', `${subject}: is a directory`);
    case 'ENOTDIR':
      return new AgentError('not_directory', `${subject}: not a directory`);
    case 'ENOTEMPTY':
      return new AgentError('failed', `${subject}: directory not empty`);
    case 'EXDEV':
      return new AgentError('failed', `${subject}: cannot move across filesystems`);
    case 'ENAMETOOLONG':
    case 'ELOOP':
      return new AgentError(
        'invalid_path',
        `${subject}: ${code === 'ELOOP' ? 'too many symbolic links' : 'name too long'}`,
      );
    case 'ENOSPC':
      return new AgentError('failed', `${subject}: no space left on device`);
    default:
      return new AgentError('failed', `${subject}: ${(error as Error | undefined)?.message ?? 'failed'}`);
  }
}
