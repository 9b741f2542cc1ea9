/**
 * A gauge of the hub's own /metrics text (prom-client's exposition format, every name prefixed `svc_hub_`).
 */

/** The value of `svc_hub_<name>` in a /metrics text; NaN when the text has no such line. */
export function hubGauge(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`svc_hub_${name} `));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}
