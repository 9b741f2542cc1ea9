import type { AreaTranslation } from './en.js';
import type { discovery as english } from './discovery.en.js';

export const discovery: AreaTranslation<typeof english> = {
  'discovery.intro':
    'Conteneurs et ports en écoute remontés par les agents, et hôtes d’une plage LAN quand l’analyse LAN est activée dans les réglages. Chaque découverte attend ici que quelqu’un l’accepte ou l’écarte.',
  'discovery.run': 'Lancer la découverte',
  'discovery.running': 'Découverte…',
  'discovery.cidr': 'CIDR du LAN (facultatif)',
  'discovery.portsOptional': 'Ports (facultatif)',
  'discovery.done':
    'Découverte terminée : {answered} agents sur {asked} ont répondu, {found, plural, one {# élément trouvé} other {# éléments trouvés}}, {suggestions, plural, one {# nouvelle suggestion} other {# nouvelles suggestions}}',
  'discovery.doneEnd': '{done}.',
  'discovery.doneLan':
    '{done} ; LAN {cidr} : {hosts, plural, one {# nouvel hôte} other {# nouveaux hôtes}} en {probes, plural, one {# sonde} other {# sondes}}.',
  'discovery.stack': 'stack {name}',
  'discovery.ports': 'ports {ports}',
  'discovery.on': 'sur {address}',
  'discovery.tcp': 'TCP {ports}',
  'discovery.decided':
    '{outcome, select, added {{title} : accepté, ajouté comme actif} accepted {{title} : accepté} other {{title} : écarté}}',
  'discovery.acceptTitle': 'Accepter {title} ?',
  'discovery.dismissTitle': 'Écarter {title} ?',
  'discovery.addAsAsset': 'Ajouter comme actif',
  'discovery.accept': 'Accepter',
  'discovery.acceptNamed': 'Accepter {title}',
  'discovery.dismiss': 'Écarter',
  'discovery.dismissNamed': 'Écarter {title}',
  'discovery.hostText':
    'L’hôte devient un actif manuel avec cette adresse ; un agent pourra y être inscrit plus tard.',
  'discovery.assetName': 'Nom de l’actif',
  'discovery.acceptText': 'Le marque comme connu. Il est déjà sur son actif ; rien d’autre ne change.',
  'discovery.dismissText': 'Les découvertes suivantes qui le retrouvent le laissent écarté.',
  'discovery.checkMade': '{name} : vérification créée. {link}.',
  'discovery.seeChecks': 'La voir sur la page des vérifications',
  'discovery.filters': 'Filtrer les suggestions',
  'discovery.status': 'Statut',
  'discovery.anyStatus': 'Tout statut',
  'discovery.statusValue':
    '{status, select, pending {en attente} accepted {acceptée} dismissed {écartée} other {{status}}}',
  'discovery.kind': 'Type',
  'discovery.anyKind': 'Tout type',
  'discovery.kindValue':
    '{kind, select, container {Conteneur} port {Port en écoute} host {Hôte du LAN} other {{kind}}}',
  'discovery.loading': 'Chargement des suggestions',
  'discovery.none': 'Aucune suggestion',
  'discovery.noneText': 'Lancez la découverte pour demander aux agents ce qui tourne sur leurs hôtes.',
  'discovery.suggestions': 'Suggestions',
  'discovery.found': 'Trouvé',
  'discovery.details': 'Détails',
  'discovery.lastSeen': 'Vu pour la dernière fois',
  'discovery.asset': 'actif',
  'discovery.watch': 'Surveiller',
  'discovery.watchNamed': 'Surveiller {title} avec une vérification',
};
