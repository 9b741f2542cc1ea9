import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { applyTheme, currentTheme } from './app/theme';
import './styles.css';

// Before the first render, so the page never flashes in the other theme.
applyTheme(currentTheme(), false);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
