import type { CompiledQuery, DialectAdapter } from 'kysely';
import type { Executor } from './schema.js';

/**
 * Queries whose shape repeats with new values (a 500-row insert, a 500-id lookup) compiled once per dialect and
 * reused: Kysely builds and compiles every query anew, and for such wide queries that costs more than running
 * them (a fan-out to 10,000 assets spent ~0.2 s compiling its audit inserts alone).
 *
 * The template is compiled with a distinct marker in every value slot; each later run maps the markers back to
 * its own values, so the parameters keep whatever order Kysely compiled them in. A compiled query keeps its
 * query node and id, so plugins (write-versions.ts) see every run as the write it is.
 */
interface Template {
  compiled: CompiledQuery;
  /** For each parameter of the compiled SQL: which value it takes. */
  slots: readonly Slot[];
}

type Slot = { kind: 'value'; index: number; key: string } | { kind: 'fixed'; value: unknown };

const markerPrefix = '\u0000svc-slot:';

function marker(index: number, key: string): string {
  return `${markerPrefix}${index}:${key}`;
}

function slotOf(parameter: unknown): Slot {
  if (typeof parameter === 'string' && parameter.startsWith(markerPrefix)) {
    const rest = parameter.slice(markerPrefix.length);
    const colon = rest.indexOf(':');
    return { kind: 'value', index: Number(rest.slice(0, colon)), key: rest.slice(colon + 1) };
  }
  // A constant the query itself holds (a literal in a where clause, say): the same in every run.
  return { kind: 'fixed', value: parameter };
}

const templates = new WeakMap<DialectAdapter, Map<string, Template>>();

/**
 * Runs `build` as a template for `size` value sets of `keys`, cached under `name`, and executes it with `values`
 * (values[i][key] fills the slot that build got as markers(i)[key]). `values.length` must equal `size`.
 */
export async function runCompiledOnce<K extends string, R>(
  db: Executor,
  name: string,
  size: number,
  keys: readonly K[],
  build: (markers: (index: number) => Record<K, string>) => { compile(): CompiledQuery<R> },
  values: readonly Readonly<Record<K, unknown>>[],
): Promise<R[]> {
  if (values.length !== size)
    throw new Error(`${name}: ${values.length} value sets for a template of ${size}`);
  const adapter = db.getExecutor().adapter;
  let byName = templates.get(adapter);
  if (!byName) {
    byName = new Map();
    templates.set(adapter, byName);
  }
  const cacheKey = `${name}/${size}`;
  let template = byName.get(cacheKey);
  if (!template) {
    const compiled = build(
      (index) => Object.fromEntries(keys.map((key) => [key, marker(index, key)])) as Record<K, string>,
    ).compile();
    template = { compiled, slots: compiled.parameters.map(slotOf) };
    byName.set(cacheKey, template);
  }
  const parameters = template.slots.map((slot) =>
    slot.kind === 'fixed' ? slot.value : (values[slot.index] as Readonly<Record<string, unknown>>)[slot.key],
  );
  const run: CompiledQuery<R> = { ...(template.compiled as CompiledQuery<R>), parameters };
  const result = await db.executeQuery(run);
  return result.rows;
}
