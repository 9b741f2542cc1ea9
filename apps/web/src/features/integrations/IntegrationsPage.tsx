/**
 * Integrations: how AI assistants (the MCP server), Prometheus and Ansible reach this hub, each with snippets
 * made from the address this page was opened at. Any signed-in user may read it; each section says which key
 * the tool needs, and admins get a link to make one.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { CopyField } from '../../components/CopyButton';
import { Loading } from '../../components/Loading';
import { PageHeader } from '../../components/PageHeader';
import {
  ansibleCommands,
  ansibleWrapper,
  caDownload,
  claudeCodeCommand,
  cursorConfig,
  mcpUrl,
  prometheusScrapeConfig,
  stdioConfig,
  svcLogin,
  vscodeConfig,
  type HubPlace,
} from './snippets';
import { useT } from '../../i18n/I18nProvider';
import { Snippet } from './Snippet';
import '../admin/admin.css';
import './integrations.css';

/** Where a key comes from: the keys page for admins, an admin for everyone else. */
function KeyHint({ need }: { need: string }) {
  const { isAdmin } = useSession();
  const { t, rich } = useT();
  return (
    <p className="muted">
      {rich('integrations.needsKey', {
        need,
        how: isAdmin ? (
          <Link to="/admin/keys">{t('integrations.createKey')}</Link>
        ) : (
          t('integrations.adminCreatesKeys')
        ),
      })}
    </p>
  );
}

/** Exporter ports and remote write are an admin's settings, on their own page (features/prometheus/). */
function PrometheusAdminLink() {
  const { isAdmin } = useSession();
  const { t, rich } = useT();
  return (
    <p className="muted">
      {rich('integrations.prometheusAdmin', {
        how: isAdmin ? (
          <Link to="/admin/prometheus">{t('integrations.prometheusAdminLink')}</Link>
        ) : (
          t('integrations.prometheusAdminOther')
        ),
      })}
    </p>
  );
}

/** What a client that is not the svc CLI needs when the hub's certificate is from its own CA. */
function CaNote({ place }: { place: HubPlace }) {
  const { t, rich } = useT();
  const download = caDownload(place);
  if (!download) return null;
  return (
    <>
      <p>
        {rich('integrations.caNote', {
          env: <code>NODE_EXTRA_CA_CERTS=$PWD/svc-hub-ca.crt</code>,
          mcp: <code>svc mcp</code>,
          login: <code>svc login</code>,
        })}
      </p>
      <Snippet title={t('integrations.caDownload')} text={download} />
    </>
  );
}

function McpSection({ place }: { place: HubPlace }) {
  const { t, rich } = useT();
  return (
    <section className="panel integration" aria-labelledby="mcp-title">
      <h2 id="mcp-title">{t('integrations.mcpTitle')}</h2>
      <p>{t('integrations.mcpText')}</p>
      <KeyHint need={t('integrations.needMcp')} />
      <CopyField label={t('integrations.mcpUrl')} value={mcpUrl(place)} />
      <CaNote place={place} />
      <h3 translate="no">Claude Code</h3>
      <Snippet title={t('integrations.claudeCodeCommand')} text={claudeCodeCommand(place)} />
      <h3 translate="no">VS Code</h3>
      <p className="muted">{rich('integrations.vscodeText', { file: <code>.vscode/mcp.json</code> })}</p>
      <Snippet title={t('integrations.vscodeConfig')} text={vscodeConfig(place)} />
      <h3 translate="no">Cursor</h3>
      <p className="muted">
        {rich('integrations.cursorText', {
          file: <code>~/.cursor/mcp.json</code>,
          project: <code>.cursor/mcp.json</code>,
          env: <code>SVC_API_KEY</code>,
        })}
      </p>
      <Snippet title={t('integrations.cursorConfig')} text={cursorConfig(place)} />
      <h3>{t('integrations.stdioTitle')}</h3>
      <p className="muted">
        {rich('integrations.stdioText', {
          mcp: <code>svc mcp</code>,
          file: <code>claude_desktop_config.json</code>,
        })}
      </p>
      <Snippet title={t('integrations.svcLogin')} text={svcLogin(place)} />
      <Snippet title={t('integrations.stdioConfig')} text={stdioConfig()} />
    </section>
  );
}

function PrometheusSection({ place }: { place: HubPlace }) {
  const { t, rich } = useT();
  return (
    <section className="panel integration" aria-labelledby="prometheus-title">
      <h2 id="prometheus-title" translate="no">
        Prometheus
      </h2>
      <p>{t('integrations.prometheusText')}</p>
      <KeyHint
        need={t('integrations.needPrometheus', {
          scope: 'prometheus:sd',
          file: '/etc/prometheus/svc-hub.key',
        })}
      />
      <Snippet title={t('integrations.scrapeConfig')} text={prometheusScrapeConfig(place)} />
      {place.caFingerprint ? (
        <p className="muted">{rich('integrations.caFile', { caFile: <code>ca_file</code> })}</p>
      ) : null}
      <PrometheusAdminLink />
    </section>
  );
}

function AnsibleSection({ place }: { place: HubPlace }) {
  const { t, rich } = useT();
  return (
    <section className="panel integration" aria-labelledby="ansible-title">
      <h2 id="ansible-title" translate="no">
        Ansible
      </h2>
      <p>
        {rich('integrations.ansibleText', {
          inventory: <code>svc inventory</code>,
          host: <code>ansible_host</code>,
          vars: <code>svc_*</code>,
        })}
      </p>
      <KeyHint need={t('integrations.needAnsible', { a: 'assets:read', b: 'groups:read' })} />
      <Snippet title={t('integrations.svcLoginAnsible')} text={svcLogin(place)} />
      <Snippet title="inventory.sh" isFileName text={ansibleWrapper()} />
      <Snippet title={t('integrations.ansibleCommands')} text={ansibleCommands()} />
      <p className="muted">{rich('integrations.ansibleDocs', { doc: <code>docs/ansible.md</code> })}</p>
    </section>
  );
}

export function IntegrationsPage() {
  const { t, rich } = useT();
  const info = useQuery({
    queryKey: ['tls', 'info'],
    queryFn: async () => (await hub.call('tls.info')).data,
    staleTime: 5 * 60_000,
  });
  // The snippets wait for the CA's fingerprint (pinned in them); should the hub not say, they go without.
  const place: HubPlace = {
    origin: window.location.origin,
    caFingerprint: info.data?.ca_fingerprint_sha256 ?? null,
  };
  return (
    <section className="page integrations" aria-labelledby="integrations-title">
      <PageHeader titleId="integrations-title" title={t('nav.integrations')} />
      {info.isPending ? (
        <Loading label={t('integrations.loading')} />
      ) : (
        <>
          <p className="muted">
            {rich('integrations.intro', { origin: <strong translate="no">{place.origin}</strong> })}
          </p>
          {info.isError ? (
            <p className="notice warning" role="note">
              {t('integrations.noCa')}
            </p>
          ) : null}
          <McpSection place={place} />
          <PrometheusSection place={place} />
          <AnsibleSection place={place} />
        </>
      )}
    </section>
  );
}
