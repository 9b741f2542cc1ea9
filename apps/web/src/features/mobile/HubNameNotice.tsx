/**
 * Passkeys need the hub opened by a name: WebAuthn's relying party is the page's host, and an IP address
 * cannot be one (the browser refuses with "invalid domain"; the hub answers 403 `webauthn_needs_hostname`).
 * On a page opened by IP address the device-owner check cannot run, so every step behind it (a terminal, a
 * desktop, a quick action) would fail without a word; this notice says why and offers the names of the hub's
 * certificate (`/api/v1/tls/info` `dns_names`) as links to this same page.
 */
import { useQuery } from '@tanstack/react-query';
import { hub } from '../../api/client';
import { useT } from '../../i18n/I18nProvider';

/** Whether `hostname` is an IP literal (IPv4, or IPv6 in brackets as `location.hostname` writes it). */
function isAddressHost(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || hostname.startsWith('[');
}

/** Whether this page was opened by IP address, where passkeys cannot work. */
export function openedByAddress(): boolean {
  return isAddressHost(window.location.hostname);
}

/** This page at each of `names`: same scheme, port, path and query. `localhost` last (this machine only). */
function pageAtNames(names: readonly string[], here: URL): string[] {
  const ordered = [...names.filter((n) => n !== 'localhost'), ...names.filter((n) => n === 'localhost')];
  return ordered.map((name) => {
    const url = new URL(here.href);
    url.hostname = name;
    return url.href;
  });
}

/** The certificate's names, or `localhost` when the page is on a loopback address and the hub names none. */
function namesToOffer(dnsNames: readonly string[] | undefined, hostname: string): string[] {
  if (dnsNames && dnsNames.length > 0) return [...dnsNames];
  return hostname.startsWith('127.') || hostname === '[::1]' ? ['localhost'] : [];
}

/** What the device-owner check guards on the screen showing the notice. */
type Guarded = 'quickAction' | 'session' | 'both';

export function HubNameNotice({ what }: { what: Guarded }) {
  const { t, rich } = useT();
  const byAddress = openedByAddress();
  const info = useQuery({
    queryKey: ['tls', 'info'],
    queryFn: async () => (await hub.call('tls.info')).data,
    enabled: byAddress,
    staleTime: 5 * 60_000,
  });
  if (!byAddress) return null;
  const hostname = window.location.hostname;
  const links = pageAtNames(namesToOffer(info.data?.dns_names, hostname), new URL(window.location.href));
  return (
    <div className="m-notice" role="alert">
      <p>
        {rich('mobile.passkeysByAddress', { host: <span translate="no">{hostname}</span>, what })}{' '}
        {t(links.length > 0 ? 'mobile.openByName' : 'mobile.openByDns')}
      </p>
      {links.length > 0 ? (
        <ul aria-label={t('mobile.hubNames')}>
          {links.map((href) => (
            <li key={href}>
              <a href={href} translate="no">
                {href}
              </a>
              {new URL(href).hostname === 'localhost' ? (
                <span className="m-muted">{t('mobile.ownMachine')}</span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
