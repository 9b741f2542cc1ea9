/**
 * Names to ids: an asset or a group may be given by id or by its name. Names are looked up through the list
 * routes, so a key sees only what it may see, and a name that matches more than one thing is refused.
 */
import { isId, paginationLimits, type Asset, type Group } from '@svc/protocol';
import type { SvcClient } from '@svc/sdk';
import { CliError, exitCodes } from './exit-codes.js';

/** Group pages read when looking for a name (500 each): past that, give the id. */
const maxGroupPages = 20;

export async function resolveAsset(client: SvcClient, ref: string): Promise<Asset> {
  if (isId(ref, 'asset')) return (await client.call('assets.get', { params: { id: ref } })).data;
  const page = await client.call('assets.list', {
    query: { q: ref, per_page: paginationLimits.maxPerPage },
  });
  const exact = page.data.filter((a) => a.name === ref);
  const matches =
    exact.length > 0 ? exact : page.data.filter((a) => a.name.toLowerCase() === ref.toLowerCase());
  if (matches.length === 1 && matches[0]) return matches[0];
  if (matches.length > 1) {
    throw new CliError(
      `${String(matches.length)} assets are named "${ref}"`,
      exitCodes.usage,
      `give one by id: ${matches.map((a) => a.id).join(', ')}`,
    );
  }
  throw new CliError(
    `no asset "${ref}"`,
    exitCodes.notFound,
    '`svc assets ls` lists the assets this key can see',
  );
}

/** Each reference's asset id, in order, without repeats. */
export async function resolveAssetIds(
  client: SvcClient,
  refs: readonly string[],
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const ref of refs) {
    const asset = await resolveAsset(client, ref);
    names.set(asset.id, asset.name);
  }
  return names;
}

export async function resolveGroup(client: SvcClient, ref: string): Promise<Group> {
  if (isId(ref, 'group')) return (await client.call('groups.get', { params: { id: ref } })).data;
  for (let page = 1; page <= maxGroupPages; page++) {
    const answer = await client.call('groups.list', {
      query: { page, per_page: paginationLimits.maxPerPage },
    });
    const match = answer.data.find((g) => g.name === ref);
    if (match) return match;
    if (page * answer.meta.per_page >= answer.meta.total) break;
  }
  throw new CliError(`no group "${ref}"`, exitCodes.notFound, 'give the group by name or id');
}
