import type { AreaTranslation } from './en.js';
import type { metrics as english } from './metrics.en.js';

export const metrics: AreaTranslation<typeof english> = {
  'metrics.range': 'Zeitraum',
  'metrics.rangeName':
    '{range, select, 1h {1 Stunde} 6h {6 Stunden} 24h {24 Stunden} 7d {7 Tage} other {30 Tage}}',
  'metrics.fetching': 'Wird geladen…',
  'metrics.samples': '{count, plural, one {# Messwert} other {# Messwerte}}',
  'metrics.samplesLive': '{count, plural, one {# Messwert} other {# Messwerte}}, alle 30 s aktualisiert',
  'metrics.samplesBucketed':
    '{count, plural, one {# Messwert} other {# Messwerte}} in {buckets, plural, one {# Intervall} other {# Intervallen}} (Min., Max. und Mittel)',
  'metrics.loading': 'Metriken werden geladen',
  'metrics.truncated':
    'Dieser Zeitraum enthält mehr Messwerte, als die Konsole auf einmal abruft: Das Diagramm endet vor jetzt. Wählen Sie für die neuesten einen kürzeren Zeitraum.',
  'metrics.none': 'Keine Messwerte im Zeitraum ({range})',
  'metrics.agentSends': 'Der Agent sendet Messwerte, solange er verbunden ist.',
  'metrics.noAgent': 'Metriken kommen von einem Agenten; dieses Gerät hat keinen.',
  'metrics.chart':
    '{chart, select, cpu {CPU} memory {Arbeitsspeicher} disk {Festplatte} load {Last} other {Netzwerk}}',
  'metrics.line':
    '{line, select, cpu {CPU} memory {Speicher belegt} disk {Festplatte belegt} load {Last (1 Min.)} rx {Empfangen} other {Gesendet}}',
  'metrics.unit': '{unit, select, percent {%} used {% belegt} load {Last (1 Min.)} other {Bytes/s}}',
};
