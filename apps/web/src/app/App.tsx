import { lazy, Suspense } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { SvcApiError } from '../api/client';
import { ErrorNotice } from '../components/ErrorNotice';
import { Loading } from '../components/Loading';
import { ChangePasswordPage } from '../features/auth/ChangePasswordPage';
import { SignInPage } from '../features/auth/SignInPage';
import { NotFoundPage, pages } from './pages';
import { SessionProvider, useSessionQuery } from './session';
import { Shell } from './Shell';

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

function SignedInRoutes() {
  return (
    <Routes>
      <Route element={<Shell />}>
        <Route index element={<Navigate to="/dashboard" replace />} />
        {pages.map(({ path, component: Page }) => (
          <Route key={path} path={path} element={<Page />} />
        ))}
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

/** Sign-in, the first-run password change, or the console, by what the hub says of this session. */
function Gate() {
  const session = useSessionQuery();
  if (session.isPending) return <Loading label="Loading the console" fullPage />;
  if (session.isError)
    return <ErrorNotice error={session.error} fullPage retry={() => void session.refetch()} />;
  const user = session.data;
  if (!user) return <SignInPage />;
  if (user.must_change_password) return <ChangePasswordPage user={user} />;
  return (
    <SessionProvider user={user}>
      <Suspense fallback={<Loading label="Loading the page" fullPage />}>
        <SignedInRoutes />
      </Suspense>
    </SessionProvider>
  );
}

/** The mobile companion: its own gate (it opens offline on the last state it saw), a lazy chunk. */
const MobileApp = lazy(async () => ({ default: (await import('../features/mobile/MobileApp')).MobileApp }));

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <Routes>
          <Route
            path="/m/*"
            element={
              <Suspense fallback={<Loading label="Loading svc hub" fullPage />}>
                <MobileApp />
              </Suspense>
            }
          />
          <Route path="*" element={<Gate />} />
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
