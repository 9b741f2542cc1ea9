/**
 * The frame of every signed-in page: a skip link, the header (search, language, theme, the user and sign-out), the
 * navigation grouped by section in a sidebar, and the page. Below 720 px the navigation folds behind a menu
 * button; it closes on navigation and on Escape.
 */
import { Suspense, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { NavLink, Outlet, useLocation } from 'react-router';
import { hub } from '../api/client';
import { Loading } from '../components/Loading';
import { LiveEventsConnection } from '../features/events/LiveEvents';
import { useT } from '../i18n/I18nProvider';
import { LanguageSelect } from '../i18n/LanguageSelect';
import { SearchDialog } from './SearchDialog';
import { MainNav } from './MainNav';
import { endSession, useSession } from './session';
import { applyTheme, currentTheme, type Theme } from './theme';

function ThemeToggle() {
  const { t } = useT();
  const [theme, setTheme] = useState<Theme>(currentTheme);
  const next: Theme = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className="icon-button"
      aria-label={t('shell.switchTheme', { theme: next })}
      title={t('shell.switchTheme', { theme: next })}
      onClick={() => {
        applyTheme(next, true);
        setTheme(next);
      }}
    >
      <span aria-hidden="true">{theme === 'dark' ? '☀' : '☾'}</span>
    </button>
  );
}

function SignOutButton() {
  const { t } = useT();
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      disabled={busy}
      onClick={() => {
        setBusy(true);
        // Signed out here whatever the hub answers: a session it no longer knows is over anyway.
        hub
          .call('auth.logout')
          .catch(() => undefined)
          .finally(() => {
            endSession(client);
          });
      }}
    >
      {t('shell.signOut')}
    </button>
  );
}

export function Shell() {
  const { t } = useT();
  const { user, isAdmin } = useSession();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const [searchOpen, setSearchOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    setMenuOpen(false);
  }, [location.pathname]);

  useEffect(() => {
    if (!menuOpen) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setMenuOpen(false);
      menuButton.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
    };
  }, [menuOpen]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const typing =
        target?.isContentEditable === true || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target?.tagName ?? '');
      if ((event.key === 'k' && (event.ctrlKey || event.metaKey)) || (event.key === '/' && !typing)) {
        event.preventDefault();
        setSearchOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
    };
  }, []);

  return (
    <div className="shell">
      <LiveEventsConnection />
      <a className="skip-link" href="#main">
        {t('shell.skipToContent')}
      </a>
      <header className="topbar">
        <NavLink to="/dashboard" className="brand">
          <img src="/favicon.svg" alt="" width="24" height="24" />
          <span translate="no">svc hub</span>
        </NavLink>
        <button
          type="button"
          ref={menuButton}
          className="menu-button icon-button"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          aria-label={t('shell.menu')}
          onClick={() => {
            setMenuOpen((open) => !open);
          }}
        >
          <span aria-hidden="true">☰</span>
        </button>
        <div className="topbar-tools">
          <button
            type="button"
            className="search-button"
            onClick={() => {
              setSearchOpen(true);
            }}
            aria-keyshortcuts="Control+K /"
          >
            <span>{t('shell.search')}</span> <kbd>Ctrl K</kbd>
          </button>
          <LanguageSelect />
          <ThemeToggle />
          <NavLink
            to="/account/security"
            className="user"
            title={t('shell.userTitle', {
              username: user.username,
              role: t('role.name', { role: user.role }),
            })}
          >
            <span translate="no">{user.username}</span>{' '}
            <span className="role-badge">{t('role.name', { role: user.role })}</span>
          </NavLink>
          <SignOutButton />
        </div>
      </header>
      <div className="shell-body">
        <MainNav isAdmin={isAdmin} open={menuOpen} />
        <main id="main" tabIndex={-1}>
          <Suspense fallback={<Loading label={t('loading.page')} />}>
            <Outlet />
          </Suspense>
        </main>
      </div>
      <SearchDialog
        open={searchOpen}
        onClose={() => {
          setSearchOpen(false);
        }}
      />
    </div>
  );
}
