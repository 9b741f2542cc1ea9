/**
 * A real OpenID provider (the `oidc-provider` package) running in-process on 127.0.0.1, for tests of the
 * hub's OIDC sign-in. One confidential client; one test account whose claims a test sets. The browser part
 * (login and consent screens) is done programmatically: the interaction endpoint logs the configured account
 * in and grants what was asked, and `authorize()` plays the browser with plain fetch, following redirects and
 * carrying cookies until the provider sends it back to the client's redirect URI.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OidcTestAccount {
  sub: string;
  /** Claims beyond `sub`: preferred_username, email, email_verified, name, groups, roles, ... */
  claims: Record<string, unknown>;
}

export interface OidcProviderOptions {
  /** Where the provider sends the browser back (the hub's SVC_OIDC_REDIRECT_URI). */
  redirectUri: string;
  clientId?: string;
  clientSecret?: string;
  /**
   * true (the default): claims asked for by scope go into the ID token. false: the provider's standard
   * behaviour for the code flow, where they are only served by the userinfo endpoint.
   */
  claimsInIdToken?: boolean;
}

export interface OidcAuthorizeResult {
  /** The redirect URI with the provider's answer (code, state, iss; or error, state). */
  callbackUrl: URL;
  /** Every URL the browser visited, in order, starting with the authorization URL. */
  visited: string[];
}

export interface OidcTestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Who the next sign-in logs in as. */
  account: OidcTestAccount;
  /** When set, the next login is refused with this OAuth error (e.g. access_denied) instead. */
  denyWith: string | null;
  /** Authorization requests the provider received (their query parameters), oldest first. */
  authorizationRequests: URLSearchParams[];
  /** Token requests (form bodies) the provider received, oldest first. */
  tokenRequests: URLSearchParams[];
  /** The hub's SVC_OIDC_* environment for this provider. */
  hubEnv(extra?: Record<string, string>): Record<string, string>;
  /** Plays the browser from the authorization URL until the provider redirects to the redirect URI. */
  authorize(authorizationUrl: string): Promise<OidcAuthorizeResult>;
  close(): Promise<void>;
}

// ---- the slice of oidc-provider's API used here (the package ships no types) ---------------------------

interface KoaContext {
  method: string;
  path: string;
  req: IncomingMessage;
  res: ServerResponse;
  respond?: boolean;
  oidc?: { body?: Record<string, unknown> };
}

interface InteractionDetails {
  prompt: { name: string; details: Record<string, unknown> };
  params: Record<string, unknown>;
  session?: { accountId?: string };
  grantId?: string;
}

interface GrantInstance {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
}

interface GrantClass {
  new (input: { accountId: string; clientId: string }): GrantInstance;
  find(id: string): Promise<GrantInstance | undefined>;
}

interface ProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    options?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: GrantClass;
}

type ProviderClass = new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;

async function loadProvider(): Promise<ProviderClass> {
  // A non-literal specifier: the package has no type declarations, so its slice is typed above.
  const specifier: string = 'oidc-provider';
  const mod = (await import(specifier)) as { default: ProviderClass };
  return mod.default;
}

// ---- the programmatic browser ----------------------------------------------------------------------------

class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq === -1) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => {
        const [key = '', val = ''] = a.split('=').map((s) => s.trim().toLowerCase());
        return (
          (key === 'max-age' && Number(val) <= 0) || (key === 'expires' && Date.parse(val) <= Date.now())
        );
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<OidcTestProvider> {
  const Provider = await loadProvider();
  const clientId = options.clientId ?? 'svc-hub';
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('hex');
  const redirectUri = options.redirectUri;

  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const authorizationRequests: URLSearchParams[] = [];
  const tokenRequests: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'test-rs256', alg: 'RS256', use: 'sig' };

  const state: Pick<OidcTestProvider, 'account' | 'denyWith'> = {
    account: {
      sub: 'test-user',
      claims: { preferred_username: 'test.user', email: 'test.user@example.test' },
    },
    denyWith: null,
  };

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    // PKCE is required of every client here, confidential ones too: a client that skips it is refused.
    pkce: { required: () => true },
    conformIdTokenClaims: options.claimsInIdToken === false,
    scopes: ['openid', 'profile', 'email', 'groups'],
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'name'],
      email: ['email', 'email_verified'],
      groups: ['groups', 'roles'],
    },
    features: { devInteractions: { enabled: false } },
    findAccount: (_ctx: unknown, sub: string) =>
      sub === state.account.sub
        ? { accountId: sub, claims: () => Promise.resolve({ ...state.account.claims, sub }) }
        : undefined,
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
      Grant: 600,
    },
  });

  // A record of what the client sent: authorization requests, and token requests once their body is parsed.
  provider.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/auth') {
      authorizationRequests.push(new URL(ctx.req.url ?? '/', issuer).searchParams);
    }
    await next();
    if (ctx.method === 'POST' && ctx.path === '/token' && ctx.oidc?.body) {
      const form = new URLSearchParams();
      for (const [name, value] of Object.entries(ctx.oidc.body)) {
        if (typeof value === 'string') form.append(name, value);
      }
      tokenRequests.push(form);
    }
  });

  // The login and consent screens, answered without a person.
  provider.use(async (ctx, next) => {
    if (ctx.method !== 'GET' || !/^\/interaction\/[^/]+$/.test(ctx.path)) {
      await next();
      return;
    }
    ctx.respond = false;
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.prompt.name === 'login') {
      const deny = state.denyWith;
      state.denyWith = null;
      const result = deny
        ? { error: deny, error_description: 'the test provider refused this sign-in' }
        : { login: { accountId: state.account.sub } };
      await provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
      return;
    }
    const accountId = details.session?.accountId ?? state.account.sub;
    const grant =
      (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
      new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    const missing = details.prompt.details;
    if (Array.isArray(missing.missingOIDCScope)) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (Array.isArray(missing.missingOIDCClaims)) grant.addOIDCClaims(missing.missingOIDCClaims as string[]);
    if (missing.missingResourceScopes && typeof missing.missingResourceScopes === 'object') {
      for (const [indicator, scopes] of Object.entries(
        missing.missingResourceScopes as Record<string, string[]>,
      )) {
        grant.addResourceScope(indicator, scopes.join(' '));
      }
    }
    const grantId = await grant.save();
    await provider.interactionFinished(
      ctx.req,
      ctx.res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  });
  handler = provider.callback();

  const self: OidcTestProvider = {
    issuer,
    clientId,
    clientSecret,
    redirectUri,
    get account() {
      return state.account;
    },
    set account(value: OidcTestAccount) {
      state.account = value;
    },
    get denyWith() {
      return state.denyWith;
    },
    set denyWith(value: string | null) {
      state.denyWith = value;
    },
    authorizationRequests,
    tokenRequests,

    hubEnv(extra = {}) {
      return {
        SVC_OIDC_ISSUER: issuer,
        SVC_OIDC_CLIENT_ID: clientId,
        SVC_OIDC_CLIENT_SECRET: clientSecret,
        SVC_OIDC_REDIRECT_URI: redirectUri,
        SVC_OIDC_SCOPES: 'openid profile email groups',
        SVC_OIDC_ALLOW_INSECURE: 'true',
        ...extra,
      };
    },

    async authorize(authorizationUrl) {
      const jar = new CookieJar();
      const visited: string[] = [];
      let next = new URL(authorizationUrl);
      for (let hop = 0; hop < 12; hop++) {
        if (next.origin !== issuer) throw new Error(`the browser was sent off the provider, to ${next.href}`);
        visited.push(next.href);
        const cookie = jar.header();
        const response = await fetch(next, {
          redirect: 'manual',
          headers: cookie ? { cookie } : {},
          signal: AbortSignal.timeout(5000),
        });
        jar.store(response);
        const location = response.headers.get('location');
        if (response.status < 300 || response.status >= 400 || !location) {
          const body = await response.text();
          throw new Error(
            `the provider answered ${response.status} at ${next.pathname}: ${body.slice(0, 500)}`,
          );
        }
        await response.body?.cancel();
        const target = new URL(location, next);
        if (target.href.startsWith(redirectUri)) return { callbackUrl: target, visited };
        next = target;
      }
      throw new Error('too many redirects at the provider');
    },

    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
  return self;
}
