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
import { Snippet } from './Snippet';
import '../admin/admin.css';
import './integrations.css';

/** Where a key comes from: the keys page for admins, an admin for everyone else. */
function KeyHint({ need }: { need: string }) {
  const { isAdmin } = useSession();
  return (
    <p className="muted">
      Needs an API key: {need}.{' '}
      {isAdmin ? (
        <Link to="/admin/keys">Create a key under Admin → API keys</Link>
      ) : (
        'An admin creates keys under Admin → API keys.'
      )}
    </p>
  );
}

/** Exporter ports and remote write are an admin's settings, on their own page (features/prometheus/). */
function PrometheusAdminLink() {
  const { isAdmin } = useSession();
  return (
    <p className="muted">
      Exporter ports per group and remote write of the hub&apos;s metrics to Prometheus:{' '}
      {isAdmin ? (
        <Link to="/admin/prometheus">Admin → Prometheus</Link>
      ) : (
        'an admin sets them under Admin → Prometheus.'
      )}
    </p>
  );
}

/** What a client that is not the svc CLI needs when the hub's certificate is from its own CA. */
function CaNote({ place }: { place: HubPlace }) {
  const download = caDownload(place);
  if (!download) return null;
  return (
    <>
      <p>
        This hub&apos;s certificate is from its own CA. A client that connects over HTTPS must trust it: add
        the CA to the system&apos;s trust store (or, for Node.js clients such as Claude Code,{' '}
        <code>NODE_EXTRA_CA_CERTS=$PWD/svc-hub-ca.crt</code>), or use <code>svc mcp</code> below, which uses
        the CA pinned at <code>svc login</code>.
      </p>
      <Snippet title="CA download" text={download} />
    </>
  );
}

function McpSection({ place }: { place: HubPlace }) {
  return (
    <section className="panel integration" aria-labelledby="mcp-title">
      <h2 id="mcp-title">AI assistants (MCP)</h2>
      <p>
        The hub is a Model Context Protocol server (Streamable HTTP): an assistant lists assets, reads their
        state and runs what the key allows, each tool call checked, rate limited and audited as the API route
        it uses.
      </p>
      <KeyHint need="the assistant can do what the key can (its role, scopes and allowed assets), so a viewer key only reads" />
      <CopyField label="MCP URL" value={mcpUrl(place)} />
      <CaNote place={place} />
      <h3>Claude Code</h3>
      <Snippet title="Claude Code command" text={claudeCodeCommand(place)} />
      <h3>VS Code</h3>
      <p className="muted">
        In <code>.vscode/mcp.json</code>; VS Code asks for the key once and keeps it in its secret storage.
      </p>
      <Snippet title="VS Code configuration" text={vscodeConfig(place)} />
      <h3>Cursor</h3>
      <p className="muted">
        In <code>~/.cursor/mcp.json</code> (or <code>.cursor/mcp.json</code> in a project); the key comes from{' '}
        <code>SVC_API_KEY</code> in the environment Cursor starts in.
      </p>
      <Snippet title="Cursor configuration" text={cursorConfig(place)} />
      <h3>Claude Desktop and other local (stdio) clients</h3>
      <p className="muted">
        <code>svc mcp</code> bridges standard input and output to the hub with the svc command line&apos;s
        saved login, so the configuration holds neither the key nor the CA. Sign the CLI in once (it asks for
        the key), then add the server (Claude Desktop: <code>claude_desktop_config.json</code>).
      </p>
      <Snippet title="svc login command" text={svcLogin(place)} />
      <Snippet title="stdio configuration" text={stdioConfig()} />
    </section>
  );
}

function PrometheusSection({ place }: { place: HubPlace }) {
  return (
    <section className="panel integration" aria-labelledby="prometheus-title">
      <h2 id="prometheus-title">Prometheus</h2>
      <p>
        Prometheus finds what to scrape through the hub (HTTP service discovery): one target per asset the key
        may see, with its groups, platform and tags as labels.
      </p>
      <KeyHint need="the scope prometheus:sd, written to /etc/prometheus/svc-hub.key (readable by Prometheus only)" />
      <Snippet title="Prometheus scrape configuration" text={prometheusScrapeConfig(place)} />
      {place.caFingerprint ? (
        <p className="muted">
          <code>ca_file</code> is this hub&apos;s CA, downloaded as in the AI assistants section above.
        </p>
      ) : null}
      <PrometheusAdminLink />
    </section>
  );
}

function AnsibleSection({ place }: { place: HubPlace }) {
  return (
    <section className="panel integration" aria-labelledby="ansible-title">
      <h2 id="ansible-title">Ansible</h2>
      <p>
        <code>svc inventory</code> is an Ansible inventory script: the assets are the hosts (with{' '}
        <code>ansible_host</code> and <code>svc_*</code> variables), the hub&apos;s groups are the groups.
        Ansible runs it through an executable wrapper, which uses the svc command line&apos;s saved login.
      </p>
      <KeyHint need="the scopes assets:read and groups:read (a viewer key is enough)" />
      <Snippet title="svc login command for Ansible" text={svcLogin(place)} />
      <Snippet title="inventory.sh" text={ansibleWrapper()} />
      <Snippet title="Ansible commands" text={ansibleCommands()} />
      <p className="muted">
        Host and group names, variables and limits: <code>docs/ansible.md</code>.
      </p>
    </section>
  );
}

export function IntegrationsPage() {
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
      <PageHeader titleId="integrations-title" title="Integrations" />
      {info.isPending ? (
        <Loading label="Reading the hub's certificate" />
      ) : (
        <>
          <p className="muted">
            Other tools on this hub at <strong>{place.origin}</strong>: copy a snippet, and put your key where
            it says.
          </p>
          {info.isError ? (
            <p className="notice warning" role="note">
              The hub did not say whether its certificate is from its own CA, so these snippets pin none.
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
