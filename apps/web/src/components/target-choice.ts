/**
 * What a saved action or a schedule runs on: assets picked by name, or one group (the hub takes `targets` or
 * `group`, one of the two). The picker shows names; the record and the request keep ids.
 */
import type { PickedAsset } from './AssetPicker';
import type { FieldProblems } from './form-problems';

export interface TargetChoice {
  mode: 'assets' | 'group';
  picked: readonly PickedAsset[];
  groupId: string;
}

export type TargetBody = { targets: string[] } | { group: string };

export const noTargets: TargetChoice = { mode: 'assets', picked: [], groupId: '' };

/** The choice a stored record makes; until their names are read, picked assets are named by their ids. */
export function storedChoice(record: { targets: string[] | null; group: string | null }): TargetChoice {
  if (record.group !== null) return { mode: 'group', picked: [], groupId: record.group };
  return { mode: 'assets', picked: (record.targets ?? []).map((id) => ({ id, name: id })), groupId: '' };
}

export function targetsChosen(choice: TargetChoice): boolean {
  return choice.mode === 'assets' ? choice.picked.length > 0 : choice.groupId !== '';
}

export function targetBody(choice: TargetChoice): TargetBody {
  return choice.mode === 'assets' ? { targets: choice.picked.map((p) => p.id) } : { group: choice.groupId };
}

/** What an edit sends of the targets: nothing unless the user changed them, so the record keeps its own. */
export function changedTargetBody(choice: TargetChoice, touched: boolean): Partial<TargetBody> {
  return touched ? targetBody(choice) : {};
}

/** Adds an asset once; picking one already chosen changes nothing. */
export function withAsset(choice: TargetChoice, asset: PickedAsset): TargetChoice {
  if (choice.picked.some((p) => p.id === asset.id)) return choice;
  return { ...choice, picked: [...choice.picked, asset] };
}

export function withoutAsset(choice: TargetChoice, id: string): TargetChoice {
  return { ...choice, picked: choice.picked.filter((p) => p.id !== id) };
}

/** The picked assets still named by their ids (a stored record's), whose names are to be read. */
export function unnamedIds(choice: TargetChoice): string[] {
  return choice.picked.filter((p) => p.name === p.id).map((p) => p.id);
}

/** The choice with the names read so far; an asset not among them keeps the name it had. */
export function withNames(choice: TargetChoice, names: readonly PickedAsset[]): TargetChoice {
  const byId = new Map(names.map((n) => [n.id, n.name]));
  return { ...choice, picked: choice.picked.map((p) => ({ ...p, name: byId.get(p.id) ?? p.name })) };
}

/** The hub's problem with the targets, whichever of the two fields it names. */
export function targetsProblem(problems: FieldProblems): string | undefined {
  return problems.targets ?? problems.group;
}
