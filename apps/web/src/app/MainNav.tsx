/**
 * The navigation: the pages of `pages.tsx` grouped by section in a sidebar, the current page's section
 * marked. Below 720 px the sidebar folds behind the header's menu button (Shell owns that state).
 */
import { NavLink, useLocation } from 'react-router';
import { useT } from '../i18n/I18nProvider';
import { navSections, pages, type NavSection, type PageEntry } from './pages';

type NavEntry = PageEntry & { nav: NonNullable<PageEntry['nav']> };

function hasNav(entry: PageEntry): entry is NavEntry {
  return entry.nav !== undefined;
}

/** The section of the page at `pathname`: that of the nav entry sharing its first segment (assets/:id too). */
function sectionOf(pathname: string): NavSection | undefined {
  const first = pathname.split('/').filter(Boolean)[0] ?? '';
  return pages.filter(hasNav).find((entry) => entry.path.split('/')[0] === first)?.nav.section;
}

export function MainNav({ isAdmin, open }: { isAdmin: boolean; open: boolean }) {
  const { t } = useT();
  const location = useLocation();
  const current = sectionOf(location.pathname);
  const entries = pages.filter(hasNav).filter((entry) => !entry.nav.adminOnly || isAdmin);
  return (
    <nav id="main-nav" aria-label={t('nav.label')} className={open ? 'main-nav open' : 'main-nav'}>
      {navSections.map((section) => {
        const links = entries.filter((entry) => entry.nav.section === section);
        if (links.length === 0) return null;
        const headingId = `nav-section-${section}`;
        const isCurrent = section === current;
        return (
          <section
            key={section}
            aria-labelledby={headingId}
            className={isCurrent ? 'nav-section current' : 'nav-section'}
          >
            <h2 id={headingId} className="nav-section-title">
              {t('nav.section', { section })}
              {isCurrent ? <span className="visually-hidden"> {t('nav.currentSection')}</span> : null}
            </h2>
            <ul>
              {links.map((entry) => (
                <li key={entry.path}>
                  <NavLink to={`/${entry.path}`}>{t(entry.nav.label)}</NavLink>
                </li>
              ))}
            </ul>
          </section>
        );
      })}
    </nav>
  );
}
