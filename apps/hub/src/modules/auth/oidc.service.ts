/**
 * OIDC sign-in: the authorization code flow with PKCE (S256), state and nonce against the provider named by
 * SVC_OIDC_*. The hub keeps each flow's verifier, state and nonce in memory (single use, 10 minutes); the
 * browser carries only the state, in a cookie that binds the flow to it. A returning account is found by
 * `issuer|sub`, created on first sign-in (no usable password), and given the role the provider's claims map
 * to on every sign-in — never the owner role, and an owner's role is never touched.
 */
import * as client from 'openid-client';
import { roleRank } from '@svc/protocol';
import type { OidcConfig } from '../../config/env.js';
import type { Clock } from '../../platform/clock.js';
import { constantTimeEqual, randomToken, sha256Hex } from '../../platform/crypto.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { OidcAccounts } from '../users/oidc-accounts.service.js';
import type { LoginOutcome, LoginService, RequestMeta } from './login.service.js';

export type OidcRole = 'admin' | 'operator' | 'viewer';

/** How long a started sign-in may take at the provider. */
export const oidcFlowLifetimeMs = 10 * 60 * 1000;

interface OidcStart {
  /** The provider's authorization URL to send the browser to. */
  url: string;
  /** The flow's state, for the browser-binding cookie. */
  state: string;
}

interface OidcFinish {
  /** The callback's query parameters as received. */
  params: URLSearchParams;
  /** The state from the browser's svc_oidc_state cookie. */
  cookieState: string | null;
  meta: RequestMeta;
}

export interface OidcService {
  start(): Promise<OidcStart>;
  finish(input: OidcFinish): Promise<LoginOutcome>;
}

interface PendingFlow {
  verifier: string;
  nonce: string;
  expiresAt: number;
}

type Claims = Record<string, unknown>;

/** The values of a claim as strings: a string, an array of strings, or a dotted path into nested objects. */
function claimValues(claims: Claims, name: string): string[] {
  let value: unknown = claims[name];
  if (value === undefined && name.includes('.')) {
    value = name.split('.').reduce<unknown>((node, part) => {
      if (node && typeof node === 'object' && !Array.isArray(node)) return (node as Claims)[part];
      return undefined;
    }, claims);
  }
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** The highest role any of the claim's values maps to; else the default role; null when neither gives one. */
export function mapRole(
  claims: Claims,
  config: Pick<OidcConfig, 'roleClaim' | 'roleMap' | 'defaultRole'>,
): OidcRole | null {
  let best: OidcRole | null = null;
  for (const value of claimValues(claims, config.roleClaim)) {
    if (!Object.hasOwn(config.roleMap, value)) continue;
    const role = config.roleMap[value];
    // Only the three assignable roles: the map is checked at startup, and checked again here.
    if (role !== 'admin' && role !== 'operator' && role !== 'viewer') continue;
    if (!best || roleRank[role] > roleRank[best]) best = role;
  }
  return best ?? config.defaultRole;
}

function sanitizeUsername(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._@-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 64);
}

/** The username a new OIDC account asks for: preferred_username, else email, else sub; [a-z0-9._@-]{3,64}. */
export function usernameFor(claims: Claims, sub: string): string {
  for (const candidate of [claims.preferred_username, claims.email, sub]) {
    if (typeof candidate !== 'string') continue;
    const name = sanitizeUsername(candidate);
    if (name.length >= 3) return name;
  }
  return `oidc-${sha256Hex(sub).slice(0, 12)}`;
}

/** The names to try, in order, when the first is taken: name-oidc, then name-oidc-xxxxx. */
function usernameCandidates(base: string): string[] {
  const names = [base, `${base.slice(0, 59)}-oidc`];
  for (let i = 0; i < 5; i++) names.push(`${base.slice(0, 53)}-oidc-${randomToken(5).slice(0, 5)}`);
  return names;
}

function refuse(message: string): HubError {
  return new HubError('unauthorized', message);
}

function isProviderError(error: unknown): boolean {
  return (
    error instanceof client.ClientError ||
    error instanceof client.AuthorizationResponseError ||
    error instanceof client.ResponseBodyError ||
    error instanceof client.WWWAuthenticateChallengeError
  );
}

export function createOidcService(deps: {
  config: OidcConfig;
  clock: Clock;
  accounts: OidcAccounts;
  login: LoginService;
  /** At most this many sign-ins in flight; the oldest is dropped beyond it. */
  maxPending?: number;
}): OidcService {
  const { config, clock, accounts, login } = deps;
  const maxPending = deps.maxPending ?? 1000;
  const pending = new Map<string, PendingFlow>();
  /** Provisioning per subject runs one at a time, so two first sign-ins cannot create two accounts. */
  const provisioning = new Map<string, Promise<unknown>>();
  let discovered: Promise<client.Configuration> | null = null;

  async function discover(): Promise<client.Configuration> {
    // Deprecated only as a warning sign: plain http is for a provider on loopback in tests (SVC_OIDC_ALLOW_INSECURE).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const insecure: (c: client.Configuration) => void = client.allowInsecureRequests;
    const execute = config.allowInsecure ? [insecure] : [];
    const found = await client.discovery(new URL(config.issuer), config.clientId, undefined, client.None(), {
      execute,
      timeout: 10,
    });
    const secret = config.clientSecret;
    if (!secret) return found;
    // client_secret_basic is the default every provider supports (RFC 6749 2.3.1); post only if it is all it lists.
    const methods = found.serverMetadata().token_endpoint_auth_methods_supported;
    const auth =
      methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
        ? client.ClientSecretPost(secret)
        : client.ClientSecretBasic(secret);
    const configured = new client.Configuration(
      found.serverMetadata(),
      config.clientId,
      { client_secret: secret },
      auth,
    );
    if (config.allowInsecure) insecure(configured);
    return configured;
  }

  function configuration(): Promise<client.Configuration> {
    discovered ??= discover().catch((error: unknown) => {
      discovered = null; // try again on the next sign-in
      if (error instanceof HubError) throw error;
      throw new HubError(
        'upstream_error',
        `The OpenID provider at ${config.issuer} could not be reached or described.`,
      );
    });
    return discovered;
  }

  function prune(now: number): void {
    for (const [state, flow] of pending) if (flow.expiresAt <= now) pending.delete(state);
    while (pending.size >= maxPending) {
      const oldest = pending.keys().next();
      if (oldest.done) break;
      pending.delete(oldest.value);
    }
  }

  /** Takes a flow out (single use): whatever happens next, its state cannot be presented again. */
  function takeFlow(state: string): PendingFlow | null {
    const flow = pending.get(state);
    if (!flow) return null;
    pending.delete(state);
    return flow.expiresAt > clock.now().getTime() ? flow : null;
  }

  async function exchange(params: URLSearchParams, state: string, flow: PendingFlow): Promise<Claims> {
    const oidc = await configuration();
    const currentUrl = new URL(config.redirectUri);
    currentUrl.search = '';
    for (const [name, value] of params) currentUrl.searchParams.append(name, value);
    let claims: Claims;
    try {
      const tokens = await client.authorizationCodeGrant(oidc, currentUrl, {
        pkceCodeVerifier: flow.verifier,
        expectedState: state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const idToken = tokens.claims();
      if (!idToken) throw refuse('The OpenID provider sent no ID token.');
      claims = { ...idToken };
      // Some providers put profile and group claims only in userinfo: ask for them when the ID token lacks them.
      if (claimValues(claims, config.roleClaim).length === 0 && oidc.serverMetadata().userinfo_endpoint) {
        const info = await client.fetchUserInfo(oidc, tokens.access_token, idToken.sub);
        claims = { ...info, ...claims };
      }
    } catch (error) {
      if (error instanceof HubError) throw error;
      if (isProviderError(error)) throw refuse('The OpenID provider did not confirm this sign-in.');
      throw new HubError('upstream_error', 'The OpenID provider could not be reached to finish the sign-in.');
    }
    return claims;
  }

  /** Runs provisioning for one subject after any still running for it. */
  function serialized(subject: string, run: () => Promise<string>): Promise<string> {
    const previous = provisioning.get(subject) ?? Promise.resolve();
    const current = previous.catch(() => undefined).then(run);
    provisioning.set(subject, current);
    void current
      .catch(() => undefined)
      .then(() => {
        if (provisioning.get(subject) === current) provisioning.delete(subject);
      });
    return current;
  }

  return {
    async start() {
      const oidc = await configuration();
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const now = clock.now().getTime();
      prune(now);
      pending.set(state, { verifier, nonce, expiresAt: now + oidcFlowLifetimeMs });
      const url = client.buildAuthorizationUrl(oidc, {
        redirect_uri: config.redirectUri,
        scope: config.scopes,
        response_type: 'code',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url: url.href, state };
    },

    async finish({ params, cookieState, meta }) {
      const state = params.get('state');
      const providerError = params.get('error');
      if (providerError !== null) {
        if (state) pending.delete(state);
        const code = /^[A-Za-z0-9_.-]{1,64}$/.test(providerError) ? providerError : 'error';
        throw refuse(`The OpenID provider refused the sign-in (${code}).`);
      }
      if (!state) throw validationError('state', 'is missing');
      if (!params.get('code')) throw validationError('code', 'is missing');
      const flow = takeFlow(state);
      if (!flow) throw refuse('This sign-in is unknown, expired or already used; start again.');
      if (!cookieState || !constantTimeEqual(cookieState, state)) {
        throw refuse('This sign-in was not started in this browser; start again.');
      }

      const claims = await exchange(params, state, flow);
      const sub = typeof claims.sub === 'string' ? claims.sub : '';
      if (!sub) throw refuse('The OpenID provider sent no subject.');
      const role = mapRole(claims, config);
      if (!role) throw new HubError('forbidden', 'no role mapped for this account');

      const subject = `${config.issuer}|${sub}`;
      const userId = await serialized(subject, () =>
        accounts.provision({
          subject,
          issuer: config.issuer,
          role,
          usernames: usernameCandidates(usernameFor(claims, sub)),
          requestId: meta.requestId,
          ip: meta.ip,
        }),
      );
      return login.startSession(userId, 'oidc', meta);
    },
  };
}
