/** The integrations page (features/integrations): MCP, Prometheus and Ansible snippets for this hub. */
export const integrations = {
  'integrations.needsKey': 'Needs an API key: {need}. {how}',
  'integrations.needMcp':
    'the assistant can do what the key can (its role, scopes and allowed assets), so a viewer key only reads',
  'integrations.needPrometheus': 'the scope {scope}, written to {file} (readable by Prometheus only)',
  'integrations.needAnsible': 'the scopes {a} and {b} (a viewer key is enough)',
  'integrations.createKey': 'Create a key under Admin → API keys',
  'integrations.adminCreatesKeys': 'An admin creates keys under Admin → API keys.',
  'integrations.prometheusAdmin':
    'Exporter ports per group and remote write of the hub’s metrics to Prometheus: {how}',
  'integrations.prometheusAdminLink': 'Admin → Prometheus',
  'integrations.prometheusAdminOther': 'an admin sets them under Admin → Prometheus.',
  'integrations.caNote':
    'This hub’s certificate is from its own CA. A client that connects over HTTPS must trust it: add the CA to the system’s trust store (or, for Node.js clients such as Claude Code, {env}), or use {mcp} below, which uses the CA pinned at {login}.',
  'integrations.caDownload': 'CA download',
  'integrations.mcpTitle': 'AI assistants (MCP)',
  'integrations.mcpText':
    'The hub is a Model Context Protocol server (Streamable HTTP): an assistant lists assets, reads their state and runs what the key allows, each tool call checked, rate limited and audited as the API route it uses.',
  'integrations.mcpUrl': 'MCP URL',
  'integrations.claudeCodeCommand': 'Claude Code command',
  'integrations.vscodeText': 'In {file}; VS Code asks for the key once and keeps it in its secret storage.',
  'integrations.vscodeConfig': 'VS Code configuration',
  'integrations.cursorText':
    'In {file} (or {project} in a project); the key comes from {env} in the environment Cursor starts in.',
  'integrations.cursorConfig': 'Cursor configuration',
  'integrations.stdioTitle': 'Claude Desktop and other local (stdio) clients',
  'integrations.stdioText':
    '{mcp} bridges standard input and output to the hub with the svc command line’s saved login, so the configuration holds neither the key nor the CA. Sign the CLI in once (it asks for the key), then add the server (Claude Desktop: {file}).',
  'integrations.svcLogin': 'svc login command',
  'integrations.stdioConfig': 'stdio configuration',
  'integrations.prometheusText':
    'Prometheus finds what to scrape through the hub (HTTP service discovery): one target per asset the key may see, with its groups, platform and tags as labels.',
  'integrations.scrapeConfig': 'Prometheus scrape configuration',
  'integrations.caFile': '{caFile} is this hub’s CA, downloaded as in the AI assistants section above.',
  'integrations.ansibleText':
    '{inventory} is an Ansible inventory script: the assets are the hosts (with {host} and {vars} variables), the hub’s groups are the groups. Ansible runs it through an executable wrapper, which uses the svc command line’s saved login.',
  'integrations.svcLoginAnsible': 'svc login command for Ansible',
  'integrations.ansibleCommands': 'Ansible commands',
  'integrations.ansibleDocs': 'Host and group names, variables and limits: {doc}.',
  'integrations.loading': 'Reading the hub’s certificate',
  'integrations.intro':
    'Other tools on this hub at {origin}: copy a snippet, and put your key where it says.',
  'integrations.noCa':
    'The hub did not say whether its certificate is from its own CA, so these snippets pin none.',
};
