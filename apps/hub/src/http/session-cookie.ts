/** The console session cookie: `svc_session`, HttpOnly, Secure, SameSite=Lax, 24 hours. */
export const sessionCookieName = 'svc_session';
export const sessionLifetimeMs = 24 * 60 * 60 * 1000;

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value.length > 0 && value.length <= 256 ? value : null;
    }
  }
  return null;
}

export function sessionCookie(token: string): string {
  return `${sessionCookieName}=${token}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${sessionLifetimeMs / 1000}`;
}

export function clearedSessionCookie(): string {
  return `${sessionCookieName}=; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=0`;
}
