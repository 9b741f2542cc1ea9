import type { AreaTranslation } from './en.js';
import type { metrics as english } from './metrics.en.js';

export const metrics: AreaTranslation<typeof english> = {
  'metrics.range': 'Période',
  'metrics.rangeName':
    '{range, select, 1h {1 heure} 6h {6 heures} 24h {24 heures} 7d {7 jours} other {30 jours}}',
  'metrics.fetching': 'Chargement…',
  'metrics.samples': '{count, plural, one {# mesure} other {# mesures}}',
  'metrics.samplesLive': '{count, plural, one {# mesure} other {# mesures}}, actualisé toutes les 30 s',
  'metrics.samplesBucketed':
    '{count, plural, one {# mesure} other {# mesures}} en {buckets, plural, one {# intervalle} other {# intervalles}} (min., max. et moyenne)',
  'metrics.loading': 'Chargement des métriques',
  'metrics.truncated':
    'Cette période contient plus de mesures que la console n’en récupère à la fois : le graphique s’arrête avant maintenant. Choisissez une période plus courte pour les dernières.',
  'metrics.none': 'Aucune mesure sur cette période ({range})',
  'metrics.agentSends': 'L’agent envoie des mesures tant qu’il est connecté.',
  'metrics.noAgent': 'Les métriques viennent d’un agent ; cet appareil n’en a pas.',
  'metrics.chart': '{chart, select, cpu {CPU} memory {Mémoire} disk {Disque} load {Charge} other {Réseau}}',
  'metrics.line':
    '{line, select, cpu {CPU} memory {Mémoire utilisée} disk {Disque utilisé} load {Charge (1 min)} rx {Reçu} other {Envoyé}}',
  'metrics.unit': '{unit, select, percent {%} used {% utilisé} load {charge (1 min)} other {octets/s}}',
};
