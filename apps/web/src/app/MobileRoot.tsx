/**
 * The mobile companion under `/m/`, with its router: a chunk of its own, like the signed-in console, so the
 * sign-in page carries no router.
 */
import { BrowserRouter, Route, Routes } from 'react-router';
import { MobileApp } from '../features/mobile/MobileApp';

export function MobileRoot() {
  return (
    <BrowserRouter>
      <Routes>
        <Route path="/m/*" element={<MobileApp />} />
      </Routes>
    </BrowserRouter>
  );
}
