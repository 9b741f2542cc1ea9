import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { applyTheme, currentTheme } from './app/theme';
import { I18nProvider, prepareTranslator } from './i18n/I18nProvider';
import { initialChoice } from './i18n/languages';
import './styles.css';

// Before the first render, so the page never flashes in the other theme.
applyTheme(currentTheme(), false);

// The first render waits for the reader's entry catalogue (a chunk of its own unless English), so the page
// never flashes in English either; the signed-in console's messages come with it (App.tsx).
const root = document.getElementById('root');
if (root) {
  void prepareTranslator(initialChoice(), 'entry').then((translator) => {
    createRoot(root).render(
      <StrictMode>
        <I18nProvider initial={translator}>
          <App />
        </I18nProvider>
      </StrictMode>,
    );
  });
}
