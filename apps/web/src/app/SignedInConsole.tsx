/**
 * The console once signed in: the shell (navigation, search, live events) and its pages. A chunk of its own,
 * loaded after the hub says who is signed in, so the sign-in page does not carry it.
 */
import { Navigate, Route, Routes } from 'react-router';
import { NotFoundPage, pages } from './pages';
import { Shell } from './Shell';

export function SignedInConsole() {
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
