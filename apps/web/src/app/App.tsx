import { lazy, Suspense, useEffect } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { isMobileApp, loadRoutes, SvcApiError } from '../api/client';
import { ErrorNotice } from '../components/ErrorNotice';
import { Loading } from '../components/Loading';
import { SignInPage } from '../features/auth/SignInPage';
import { loadConsoleCatalogue } from '../i18n/catalogues';
import { useConsoleMessages, useT } from '../i18n/I18nProvider';
import { sessionQuery, SessionProvider, useSessionQuery } from './session';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // 4xx answers are final (a retry gets the same); network trouble gets two more tries.
      retry: (failures, error) => !(error instanceof SvcApiError && error.status < 500) && failures < 2,
      refetchOnWindowFocus: true,
      staleTime: 5_000,
    },
  },
});

// The first screen depends on who is signed in: asked while the scripts still run, not after React's first
// commit. (The mobile app has its own gate, which opens offline.)
// A failure shows as the gate's (the query's error state, as if the gate had asked).
if (!isMobileApp()) queryClient.query(sessionQuery).catch(() => undefined);

// What comes after sign-in, each a chunk of its own: the sign-in page loads only what it shows. The console's
// chunk and the route inventory its calls need are fetched together.
const loadSignedInConsole = () => {
  // A failed load is tried again by the first call that needs it.
  loadRoutes().catch(() => undefined);
  return import('./SignedInConsole');
};
const SignedInConsole = lazy(async () => ({ default: (await loadSignedInConsole()).SignedInConsole }));
const ChangePasswordPage = lazy(async () => ({
  default: (await import('../features/auth/ChangePasswordPage')).ChangePasswordPage,
}));

/**
 * The sign-in page; the console's chunks are fetched at the first key or click on it, while the user types.
 * Not as soon as it shows: running them then would hold up the page just shown (and its first keystrokes).
 */
function SignInWithPrefetch() {
  const { language } = useT();
  useEffect(() => {
    const intents = ['keydown', 'pointerdown', 'input'] as const;
    const stop = () => {
      for (const intent of intents) document.removeEventListener(intent, prefetch, true);
    };
    const prefetch = () => {
      stop();
      // A failed prefetch is tried again by the lazy component that needs it.
      loadSignedInConsole().catch(() => undefined);
      loadConsoleCatalogue(language).catch(() => undefined);
    };
    for (const intent of intents)
      document.addEventListener(intent, prefetch, { capture: true, passive: true });
    return stop;
  }, [language]);
  return <SignInPage />;
}

/** The signed-in console once its chunk and its messages are both there, fetched at the same time. */
function SignedInConsoleWithMessages() {
  // A failed load is tried again by the lazy component.
  loadSignedInConsole().catch(() => undefined);
  useConsoleMessages();
  return <SignedInConsole />;
}

/** Sign-in, the first-run password change, or the console, by what the hub says of this session. */
function Gate() {
  const { t } = useT();
  const session = useSessionQuery();
  if (session.isPending) return <Loading label={t('loading.console')} fullPage />;
  if (session.isError)
    return <ErrorNotice error={session.error} fullPage retry={() => void session.refetch()} />;
  const user = session.data;
  if (!user) return <SignInWithPrefetch />;
  if (user.must_change_password)
    return (
      <Suspense fallback={<Loading label={t('loading.page')} fullPage />}>
        <ChangePasswordPage user={user} />
      </Suspense>
    );
  return (
    <SessionProvider user={user}>
      <Suspense fallback={<Loading label={t('loading.page')} fullPage />}>
        <SignedInConsoleWithMessages />
      </Suspense>
    </SessionProvider>
  );
}

/** The mobile companion: its own gate (it opens offline on the last state it saw), a lazy chunk. */
const MobileRoot = lazy(async () => ({ default: (await import('./MobileRoot')).MobileRoot }));

/** The mobile app under `/m/` or the console; each brings its router in its own chunk. */
export function App() {
  const { t } = useT();
  return (
    <QueryClientProvider client={queryClient}>
      {isMobileApp() ? (
        <Suspense fallback={<Loading label={t('loading.app')} fullPage />}>
          <MobileRoot />
        </Suspense>
      ) : (
        <Gate />
      )}
    </QueryClientProvider>
  );
}
