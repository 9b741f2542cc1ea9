import type { AreaTranslation } from './en.js';
import type { integrations as english } from './integrations.en.js';

export const integrations: AreaTranslation<typeof english> = {
  'integrations.needsKey': 'Braucht einen API-Schlüssel: {need}. {how}',
  'integrations.needMcp':
    'Der Assistent kann, was der Schlüssel kann (seine Rolle, Scopes und erlaubten Assets), ein Viewer-Schlüssel liest also nur',
  'integrations.needPrometheus': 'den Scope {scope}, gespeichert in {file} (nur für Prometheus lesbar)',
  'integrations.needAnsible': 'die Scopes {a} und {b} (ein Viewer-Schlüssel genügt)',
  'integrations.createKey': 'Einen Schlüssel unter Verwaltung → API-Schlüssel erstellen',
  'integrations.adminCreatesKeys': 'Ein Admin erstellt Schlüssel unter Verwaltung → API-Schlüssel.',
  'integrations.prometheusAdmin':
    'Exporter-Ports pro Gruppe und Remote Write der Metriken des Hubs an Prometheus: {how}',
  'integrations.prometheusAdminLink': 'Verwaltung → Prometheus',
  'integrations.prometheusAdminOther': 'ein Admin legt sie unter Verwaltung → Prometheus fest.',
  'integrations.caNote':
    'Das Zertifikat dieses Hubs stammt von seiner eigenen CA. Ein Client, der sich über HTTPS verbindet, muss ihr vertrauen: Fügen Sie die CA dem Zertifikatspeicher des Systems hinzu (oder, für Node.js-Clients wie Claude Code, {env}) oder nutzen Sie {mcp} unten, das die bei {login} gepinnte CA verwendet.',
  'integrations.caDownload': 'CA herunterladen',
  'integrations.mcpTitle': 'KI-Assistenten (MCP)',
  'integrations.mcpText':
    'Der Hub ist ein Model-Context-Protocol-Server (Streamable HTTP): Ein Assistent listet Assets auf, liest ihren Zustand und führt aus, was der Schlüssel erlaubt; jeder Tool-Aufruf wird geprüft, begrenzt und protokolliert wie die API-Route, die er nutzt.',
  'integrations.mcpUrl': 'MCP-URL',
  'integrations.claudeCodeCommand': 'Claude-Code-Befehl',
  'integrations.vscodeText':
    'In {file}; VS Code fragt einmal nach dem Schlüssel und bewahrt ihn in seinem Geheimnisspeicher auf.',
  'integrations.vscodeConfig': 'VS-Code-Konfiguration',
  'integrations.cursorText':
    'In {file} (oder {project} in einem Projekt); der Schlüssel kommt aus {env} in der Umgebung, in der Cursor startet.',
  'integrations.cursorConfig': 'Cursor-Konfiguration',
  'integrations.stdioTitle': 'Claude Desktop und andere lokale (stdio-)Clients',
  'integrations.stdioText':
    '{mcp} verbindet Standardein- und -ausgabe mit dem Hub über die gespeicherte Anmeldung der svc-Kommandozeile, sodass die Konfiguration weder Schlüssel noch CA enthält. Melden Sie die CLI einmal an (sie fragt nach dem Schlüssel) und fügen Sie dann den Server hinzu (Claude Desktop: {file}).',
  'integrations.svcLogin': 'svc-login-Befehl',
  'integrations.stdioConfig': 'stdio-Konfiguration',
  'integrations.prometheusText':
    'Prometheus findet über den Hub, was es abfragen soll (HTTP Service Discovery): ein Ziel pro Asset, das der Schlüssel sehen darf, mit seinen Gruppen, Plattform und Tags als Labels.',
  'integrations.scrapeConfig': 'Prometheus-Scrape-Konfiguration',
  'integrations.caFile':
    '{caFile} ist die CA dieses Hubs, heruntergeladen wie oben im Abschnitt KI-Assistenten.',
  'integrations.ansibleText':
    '{inventory} ist ein Ansible-Inventory-Skript: Die Assets sind die Hosts (mit den Variablen {host} und {vars}), die Gruppen des Hubs sind die Gruppen. Ansible führt es über einen ausführbaren Wrapper aus, der die gespeicherte Anmeldung der svc-Kommandozeile nutzt.',
  'integrations.svcLoginAnsible': 'svc-login-Befehl für Ansible',
  'integrations.ansibleCommands': 'Ansible-Befehle',
  'integrations.ansibleDocs': 'Host- und Gruppennamen, Variablen und Grenzen: {doc}.',
  'integrations.loading': 'Zertifikat des Hubs wird gelesen',
  'integrations.intro':
    'Andere Werkzeuge für diesen Hub unter {origin}: Kopieren Sie ein Snippet und setzen Sie Ihren Schlüssel dort ein, wo es angegeben ist.',
  'integrations.noCa':
    'Der Hub hat nicht gesagt, ob sein Zertifikat von seiner eigenen CA stammt, daher pinnen diese Snippets keine.',
};
