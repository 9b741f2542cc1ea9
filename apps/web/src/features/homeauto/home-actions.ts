/** Which button an entity gets on the Home page, and the service it calls. Pure. */
import { homeautoControlDomains, type HomeautoControlDomain, type HomeautoEntity } from '@svc/protocol';

/** What the button says, one branch of the `homeauto.action` message. */
type EntityVerb = 'turnOff' | 'turnOn' | 'run' | 'press' | 'unlock' | 'lock' | 'close' | 'open';

export interface EntityAction {
  verb: EntityVerb;
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
      ? { verb: 'turnOff', service: 'turn_off' }
      : { verb: 'turnOn', service: 'turn_on' };
  }
  switch (entity.domain) {
    case 'scene':
    case 'script':
      return { verb: 'run', service: 'turn_on' };
    case 'button':
      return { verb: 'press', service: 'press' };
    case 'lock':
      return entity.state === 'locked'
        ? { verb: 'unlock', service: 'unlock' }
        : { verb: 'lock', service: 'lock' };
    case 'cover':
      return entity.state === 'open'
        ? { verb: 'close', service: 'close_cover' }
        : { verb: 'open', service: 'open_cover' };
    default:
      return null;
  }
}
