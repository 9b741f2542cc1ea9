import type { AreaTranslation } from './en.js';
import type { integrations as english } from './integrations.en.js';

export const integrations: AreaTranslation<typeof english> = {
  'integrations.needsKey': 'Nécessite une clé d’API : {need}. {how}',
  'integrations.needMcp':
    'l’assistant peut faire ce que peut la clé (son rôle, ses scopes et ses actifs permis), une clé de lecteur ne fait donc que lire',
  'integrations.needPrometheus': 'le scope {scope}, écrite dans {file} (lisible par Prometheus seul)',
  'integrations.needAnsible': 'les scopes {a} et {b} (une clé de lecteur suffit)',
  'integrations.createKey': 'Créer une clé sous Administration → Clés d’API',
  'integrations.adminCreatesKeys': 'Un administrateur crée les clés sous Administration → Clés d’API.',
  'integrations.prometheusAdmin':
    'Ports d’exporteur par groupe et remote write des métriques du hub vers Prometheus : {how}',
  'integrations.prometheusAdminLink': 'Administration → Prometheus',
  'integrations.prometheusAdminOther': 'un administrateur les règle sous Administration → Prometheus.',
  'integrations.caNote':
    'Le certificat de ce hub vient de sa propre CA. Un client qui se connecte en HTTPS doit lui faire confiance : ajoutez la CA au magasin de confiance du système (ou, pour les clients Node.js comme Claude Code, {env}), ou utilisez {mcp} ci-dessous, qui utilise la CA épinglée lors de {login}.',
  'integrations.caDownload': 'Téléchargement de la CA',
  'integrations.mcpTitle': 'Assistants IA (MCP)',
  'integrations.mcpText':
    'Le hub est un serveur Model Context Protocol (Streamable HTTP) : un assistant liste les actifs, lit leur état et exécute ce que la clé permet ; chaque appel d’outil est vérifié, limité et audité comme la route d’API qu’il utilise.',
  'integrations.mcpUrl': 'URL MCP',
  'integrations.claudeCodeCommand': 'Commande Claude Code',
  'integrations.vscodeText':
    'Dans {file} ; VS Code demande la clé une fois et la garde dans son stockage de secrets.',
  'integrations.vscodeConfig': 'Configuration VS Code',
  'integrations.cursorText':
    'Dans {file} (ou {project} dans un projet) ; la clé vient de {env} dans l’environnement où Cursor démarre.',
  'integrations.cursorConfig': 'Configuration Cursor',
  'integrations.stdioTitle': 'Claude Desktop et autres clients locaux (stdio)',
  'integrations.stdioText':
    '{mcp} relie l’entrée et la sortie standard au hub avec la connexion enregistrée de la ligne de commande svc : la configuration ne contient ni la clé ni la CA. Connectez la CLI une fois (elle demande la clé), puis ajoutez le serveur (Claude Desktop : {file}).',
  'integrations.svcLogin': 'Commande svc login',
  'integrations.stdioConfig': 'Configuration stdio',
  'integrations.prometheusText':
    'Prometheus trouve quoi collecter par le hub (découverte de services HTTP) : une cible par actif que la clé peut voir, avec ses groupes, sa plateforme et ses tags comme labels.',
  'integrations.scrapeConfig': 'Configuration de scrape Prometheus',
  'integrations.caFile':
    '{caFile} est la CA de ce hub, téléchargée comme dans la section Assistants IA ci-dessus.',
  'integrations.ansibleText':
    '{inventory} est un script d’inventaire Ansible : les actifs sont les hôtes (avec les variables {host} et {vars}), les groupes du hub sont les groupes. Ansible l’exécute par un wrapper exécutable, qui utilise la connexion enregistrée de la ligne de commande svc.',
  'integrations.svcLoginAnsible': 'Commande svc login pour Ansible',
  'integrations.ansibleCommands': 'Commandes Ansible',
  'integrations.ansibleDocs': 'Noms d’hôtes et de groupes, variables et limites : {doc}.',
  'integrations.loading': 'Lecture du certificat du hub',
  'integrations.intro':
    'D’autres outils sur ce hub à l’adresse {origin} : copiez un extrait et mettez votre clé là où il l’indique.',
  'integrations.noCa':
    'Le hub n’a pas dit si son certificat vient de sa propre CA : ces extraits n’en épinglent donc aucune.',
};
