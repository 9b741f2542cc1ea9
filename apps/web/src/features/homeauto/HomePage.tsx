/**
 * Home: the entities of a Home Assistant a connector brought, with their states, and a button per device
 * (turn on or off, run a scene) for roles that may change things and keys with `homeauto:write`.
 */
import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import type { Asset, HomeautoEntity } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { FilterSelect } from '../../components/FilterSelect';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Pager } from '../../components/Pager';
import { Time } from '../../components/Time';
import { pickAsset, useConnectorAssets } from '../../components/use-connector-assets';
import { useT } from '../../i18n/I18nProvider';
import { actionFor, type EntityAction } from './home-actions';

const perPage = 100;
/** States that carry no reading: no unit after them. */
const noValue = new Set(['unavailable', 'unknown']);
const domains = ['light', 'switch', 'sensor', 'binary_sensor', 'climate', 'cover', 'lock', 'scene', 'script'];

function EntityRow({
  asset,
  entity,
  canMutate,
}: {
  asset: Asset;
  entity: HomeautoEntity;
  canMutate: boolean;
}) {
  const { t } = useT();
  const client = useQueryClient();
  const [failed, setFailed] = useState<unknown>(null);
  const action = canMutate ? actionFor(entity) : null;
  const call = useMutation({
    mutationFn: async (chosen: EntityAction) =>
      (
        await hub.call('homeauto.callService', {
          params: { id: asset.id, domain: chosen.domain, service: chosen.service },
          body: { entity_id: [entity.entity_id] },
        })
      ).data,
    onSuccess: async () => {
      setFailed(null);
      await client.invalidateQueries({ queryKey: ['homeauto', asset.id] });
    },
    onError: (error) => {
      setFailed(error);
    },
  });
  return (
    <tr data-entity-id={entity.entity_id}>
      <th scope="row" translate="no">
        {entity.name}
      </th>
      <td className="muted" translate="no">
        {entity.entity_id}
      </td>
      <td translate="no">
        <span className={noValue.has(entity.state) ? 'state-bad' : undefined}>
          {entity.state}
          {entity.unit && !noValue.has(entity.state) && ` ${entity.unit}`}
        </span>
      </td>
      <td>
        <Time value={entity.last_changed} />
      </td>
      {canMutate && (
        <td>
          {action && (
            <button
              type="button"
              disabled={call.isPending}
              aria-label={t('homeauto.actionNamed', { verb: action.verb, name: entity.name })}
              onClick={() => {
                call.mutate(action);
              }}
            >
              {t('homeauto.action', { verb: action.verb })}
            </button>
          )}
          {failed !== null && <ErrorNotice error={failed} />}
        </td>
      )}
    </tr>
  );
}

function Entities({ asset }: { asset: Asset }) {
  const { t } = useT();
  const { canMutate } = useSession();
  const [params, setParams] = useSearchParams();
  const domain = params.get('domain') ?? '';
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const entities = useQuery({
    queryKey: ['homeauto', asset.id, 'entities', domain, page],
    queryFn: () =>
      hub.call('homeauto.entities', {
        params: { id: asset.id },
        query: { page, per_page: perPage, ...(domain ? { domain } : {}) },
      }),
    placeholderData: keepPreviousData,
    refetchInterval: 15_000,
  });
  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    if (name !== 'page') next.delete('page');
    setParams(next, { replace: true });
  };
  return (
    <>
      <div className="filters" role="search" aria-label={t('homeauto.filters')}>
        <FilterSelect
          id="home-domain"
          label={t('homeauto.domain')}
          value={domain}
          anyLabel={t('homeauto.everyDomain')}
          options={domains}
          onChange={(value) => {
            setParam('domain', value);
          }}
        />
      </div>
      {entities.isPending && <Loading label={t('homeauto.loadingEntities')} />}
      {entities.isError && <ErrorNotice error={entities.error} retry={() => void entities.refetch()} />}
      {entities.isSuccess && entities.data.data.length === 0 && (
        <EmptyState title={t('homeauto.noEntities')} />
      )}
      {entities.isSuccess && entities.data.data.length > 0 && (
        <>
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('homeauto.entities')}>
              <thead>
                <tr>
                  <th scope="col">{t('homeauto.name')}</th>
                  <th scope="col">{t('homeauto.entity')}</th>
                  <th scope="col">{t('homeauto.state')}</th>
                  <th scope="col">{t('homeauto.changed')}</th>
                  {canMutate && <th scope="col">{t('homeauto.control')}</th>}
                </tr>
              </thead>
              <tbody>
                {entities.data.data.map((e) => (
                  <EntityRow key={e.entity_id} asset={asset} entity={e} canMutate={canMutate} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={page}
            perPage={perPage}
            total={entities.data.meta.total}
            busy={entities.isFetching}
            onPage={(p) => {
              setParam('page', String(p));
            }}
          />
        </>
      )}
    </>
  );
}

export function HomePage() {
  const { t } = useT();
  const [params, setParams] = useSearchParams();
  const instances = useConnectorAssets('homeauto');
  const asset = instances.data ? pickAsset(instances.data, params.get('asset')) : null;
  return (
    <section className="page" aria-labelledby="home-title">
      <div className="page-header">
        <h1 id="home-title">{t('nav.home')}</h1>
      </div>
      {instances.isPending && <Loading label={t('homeauto.loading')} />}
      {instances.isError && <ErrorNotice error={instances.error} retry={() => void instances.refetch()} />}
      {instances.isSuccess && instances.data.length === 0 && (
        <EmptyState title={t('homeauto.none')}>
          <p>{t('homeauto.noneText')}</p>
        </EmptyState>
      )}
      {asset && instances.data && instances.data.length > 1 && (
        <div className="filters" role="search" aria-label={t('homeauto.choose')}>
          <div className="filter">
            <label htmlFor="home-asset">{t('homeauto.instance')}</label>
            <select
              translate="no"
              id="home-asset"
              value={asset.id}
              onChange={(e) => {
                setParams(new URLSearchParams({ asset: e.target.value }), { replace: true });
              }}
            >
              {instances.data.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
          </div>
        </div>
      )}
      {asset && <Entities asset={asset} />}
    </section>
  );
}
