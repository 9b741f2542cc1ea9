/**
 * The console once signed in: the router, the shell (navigation, search, live events) and its pages. A chunk
 * of its own, loaded after the hub says who is signed in, so the sign-in page does not carry it. The router
 * starts at the address the browser shows, so signing in again lands on the page where the session ended.
 */
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { NotFoundPage, pages } from './pages';
import { Shell } from './Shell';

export function SignedInConsole() {
  return (
    <BrowserRouter>
      <Routes>
        <Route element={<Shell />}>
          <Route index element={<Navigate to="/dashboard" replace />} />
          {pages.map(({ path, component: Page }) => (
            <Route key={path} path={path} element={<Page />} />
          ))}
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </BrowserRouter>
  );
}
