/**
 * Who is signed in: `GET /api/auth/me`, kept in the query cache under `sessionKey`. A 401 from any call sets
 * it to null (signed out) and drops every other cached answer, so nothing of the last user stays on screen.
 */
import { createContext, useContext, useEffect, useMemo, type ReactNode } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { SessionUser } from '@svc/protocol';
import { hub, onUnauthorized, SvcApiError } from '../api/client';

export const sessionKey = ['session'] as const;

export async function fetchSession(): Promise<SessionUser | null> {
  try {
    return (await hub.call('auth.me')).data;
  } catch (error) {
    if (error instanceof SvcApiError && error.status === 401) return null;
    throw error;
  }
}

/** Forgets everything the last user loaded and marks the console signed out. */
export function endSession(client: QueryClient): void {
  client.cancelQueries().catch(() => undefined);
  client.removeQueries({ predicate: (query) => query.queryKey[0] !== sessionKey[0] });
  client.setQueryData(sessionKey, null);
}

export interface Session {
  user: SessionUser;
  /** Admin or owner: the Administration area and its controls. */
  isAdmin: boolean;
  /** Not a viewer: controls that change something are shown (the hub still checks every request). */
  canMutate: boolean;
}

const SessionContext = createContext<Session | null>(null);

function sessionOf(user: SessionUser): Session {
  return {
    user,
    isAdmin: user.role === 'admin' || user.role === 'owner',
    canMutate: user.role !== 'viewer',
  };
}

export function SessionProvider({ user, children }: { user: SessionUser; children: ReactNode }) {
  // One value per user object: a new object each render would re-render every consumer.
  const session = useMemo(() => sessionOf(user), [user]);
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

/** The signed-in user; only inside the signed-in part of the console. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** The session query's options: the gate's, and the request App.tsx makes before React's first render. */
export const sessionQuery = {
  queryKey: sessionKey,
  queryFn: fetchSession,
  staleTime: 60_000,
  retry: false,
} as const;

/** The session query, and the 401 listener that ends it. */
export function useSessionQuery() {
  const client = useQueryClient();
  useEffect(
    () =>
      onUnauthorized(() => {
        endSession(client);
      }),
    [client],
  );
  return useQuery(sessionQuery);
}
