/** Which button an entity gets on the Home page, and the service it calls. Pure. */
import { homeautoControlDomains, type HomeautoControlDomain, type HomeautoEntity } from '@svc/protocol';

export interface EntityAction {
  label: string;
  domain: HomeautoControlDomain;
  service: string;
}

function controlDomainOf(domain: string): HomeautoControlDomain | null {
  return homeautoControlDomains.find((d) => d === domain) ?? null;
}

const onOff = new Set(['light', 'switch', 'fan', 'input_boolean', 'siren', 'humidifier']);

export function actionFor(entity: HomeautoEntity): EntityAction | null {
  const domain = controlDomainOf(entity.domain);
  if (!entity.controllable || domain === null || entity.state === 'unavailable') return null;
  const action = serviceFor(entity);
  return action ? { ...action, domain } : null;
}

function serviceFor(entity: HomeautoEntity): Omit<EntityAction, 'domain'> | null {
  if (onOff.has(entity.domain)) {
    return entity.state === 'on'
      ? { label: 'Turn off', service: 'turn_off' }
      : { label: 'Turn on', service: 'turn_on' };
  }
  switch (entity.domain) {
    case 'scene':
    case 'script':
      return { label: 'Run', service: 'turn_on' };
    case 'button':
      return { label: 'Press', service: 'press' };
    case 'lock':
      return entity.state === 'locked'
        ? { label: 'Unlock', service: 'unlock' }
        : { label: 'Lock', service: 'lock' };
    case 'cover':
      return entity.state === 'open'
        ? { label: 'Close', service: 'close_cover' }
        : { label: 'Open', service: 'open_cover' };
    default:
      return null;
  }
}
