/**
 * The mobile companion under `/m/`, with its router: a chunk of its own, like the signed-in console, so the
 * sign-in page carries no router.
 */
import { BrowserRouter, Route, Routes } from 'react-router';
import { MobileApp } from '../features/mobile/MobileApp';
import { useConsoleMessages } from '../i18n/I18nProvider';

export function MobileRoot() {
  useConsoleMessages();
  return (
    <BrowserRouter>
      <Routes>
        <Route path="/m/*" element={<MobileApp />} />
      </Routes>
    </BrowserRouter>
  );
}
