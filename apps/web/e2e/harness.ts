/**
 * The browser tests' harness: one real hub process per test file (built output, HTTPS with its own CA, on
 * loopback, with its local agent when asked), and Debian's chromium driven by playwright-core, fresh profile.
 *
 * `useConsole()` starts both before the file's tests and stops them after; the getter it returns gives the
 * page, an API client holding the owner token (for setting things up and for checking what the page shows),
 * `signIn(role)` through the sign-in form, `screenshot(name)` (light and dark, into docs/screenshots/ when
 * SVC_SCREENSHOTS=1) and the Content-Security-Policy violations the page reported. Any such violation fails
 * the test it happened in.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { AssignableRole } from '@svc/protocol';
import { claimOwner, freePort, testTerminalEnvironment, tlsRequest } from '@svc/testkit';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const hubLauncher = path.join(repoRoot, 'apps/hub/bin/svc-hub.js');
const screenshotDir = path.join(repoRoot, 'docs/screenshots');

const actionTimeoutMs = 8_000;
const browserLocale = 'en-US';
/**
 * Debian's chromium-headless-shell, the same engine without the browser's own interface: Playwright's default
 * for headless runs, and about a quarter less CPU per file than the whole browser here (decision 0103). The
 * files that need the whole browser say so (`notifications`); `SVC_CHROMIUM` names one browser for all.
 */
const fullChromium = '/usr/bin/chromium';
const headlessShell = '/usr/bin/chromium-headless-shell';
function chromiumFor(options: ConsoleOptions): string {
  if (process.env.SVC_CHROMIUM) return process.env.SVC_CHROMIUM;
  return options.notifications || !fs.existsSync(headlessShell) ? fullChromium : headlessShell;
}
const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Runs in every page before its scripts: CSP violations reach the console, where the harness sees them (with
 * chromium's own "Refused to ..." message for the same violation), naming the directive, what was blocked and
 * the script that tried.
 */
const reportViolations = `document.addEventListener('securitypolicyviolation', (event) => {
  console.error('Content Security Policy violation: ' + event.effectiveDirective + ' blocked ' +
    (event.blockedURI || 'inline') + ' from ' + (event.sourceFile || 'the page') + ':' + event.lineNumber +
    (event.sample ? ' (' + event.sample + ')' : ''));
});`;

interface ApiAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: { data?: unknown; error?: string; message?: string; meta?: { total: number } };
  text: string;
}

interface Credentials {
  username: string;
  password: string;
}

export interface ConsoleHarness {
  baseUrl: string;
  dataDir: string;
  /** Null when the file asked to keep the first run (owner not claimed yet). */
  ownerKey: string | null;
  ownerPassword: string | null;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Messages of CSP violations the page reported (console and `securitypolicyviolation`). */
  cspViolations: string[];
  /** The hub's REST API with the owner token (or another key). */
  api(method: string, urlPath: string, body?: unknown, key?: string): Promise<ApiAnswer>;
  /** A local user of this role (made once per role), signed in through the form of a fresh page. */
  signIn(role: AssignableRole | 'owner'): Promise<Credentials>;
  /** Signs in through the form with these credentials on the current page. */
  signInWith(credentials: Credentials): Promise<void>;
  /** The page in light and in dark, as docs/screenshots/<name>-<theme>.png (SVC_SCREENSHOTS=1 only). */
  screenshot(name: string): Promise<void>;
  /** Output of the hub process so far, for failure messages. */
  hubOutput(): string;
  /** Stops the hub process (SIGTERM); the browser stays, its pages now reach nothing. */
  stopHub(): Promise<void>;
  /** Starts the hub again on the same data directory and ports: the page keeps its origin. */
  startHub(): Promise<void>;
}

export interface ConsoleOptions {
  /** Run the hub's own agent for this machine (`SVC_LOCAL_AGENT=true`, power actions off). */
  localAgent?: boolean;
  /** Leave the owner's first run as it is: the generated password still to be changed. */
  keepFirstRun?: boolean;
  env?: Record<string, string>;
  /**
   * The hub on plain HTTP at `http://localhost:<port>` (TLS disabled): a secure context chromium trusts without a
   * certificate, so service workers, Web Push and WebAuthn work (the mobile app's tests).
   */
  plainHttp?: boolean;
  /** The browser's viewport (1280×800 unless told); the mobile tests use a phone's. */
  viewport?: { width: number; height: number };
  /** A phone's touch screen: touch events, and the mobile viewport's meta tag honoured. */
  touch?: boolean;
  /** The browser's IANA time zone (the machine's unless told); the hub's follows `env.TZ`. */
  timezoneId?: string;
  /**
   * The service worker shows notifications (Web Push): the whole chromium, as the headless shell has no
   * notification support.
   */
  notifications?: boolean;
}

/** GET or POST over plain HTTP, shaped like tlsRequest's answer. */
async function plainRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const answer = await fetch(url, {
    method: options.method ?? 'GET',
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  return { status: answer.status, headers: Object.fromEntries(answer.headers), body: await answer.text() };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until it returns a value other than undefined, at most `timeoutMs`; at once when `gone` says
 * what will never answer.
 */
async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  gone: () => string | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ended = gone();
    if (ended) throw new Error(`${ended} while waiting for ${what}`);
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}

/** Where a hub process keeps its state and listens: kept across a stop and start. */
interface HubPlace {
  root: string;
  httpsPort: number;
  httpPort: number;
}

interface HubProcess {
  child: ChildProcess;
  baseUrl: string;
  dataDir: string;
  ca: string;
  output(): string;
  stop(): Promise<void>;
}

async function newHubPlace(): Promise<HubPlace> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-web-e2e-'));
  return { root, httpsPort: await freePort(), httpPort: await freePort() };
}

async function startHub(options: ConsoleOptions, place: HubPlace): Promise<HubProcess> {
  const { root: dataDir, httpsPort, httpPort } = place;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SVC_DATA_DIR: path.join(dataDir, 'data'),
    SVC_TLS_CA_KEY_DIR: path.join(dataDir, 'ca-key'),
    SVC_TLS_MODE: options.plainHttp ? 'disabled' : 'auto',
    SVC_HOST: '127.0.0.1',
    SVC_HTTPS_PORT: String(httpsPort),
    SVC_HTTP_PORT: String(httpPort),
    SVC_BCRYPT_COST: '4',
    SVC_RATE_LIMIT_ENABLED: 'false',
    SVC_LOCAL_AGENT: options.localAgent ? 'true' : 'false',
    SVC_LOG_LEVEL: 'warn',
    // The local agent's terminals: a known shell, not the machine's slow start-up files.
    ...testTerminalEnvironment,
  };
  // SQLite unless the file asks for PostgreSQL: never the database of the environment the tests run in.
  delete env.SVC_DATABASE_URL;
  Object.assign(env, options.env);
  const child = spawn(process.execPath, [hubLauncher], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-64 * 1024);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const baseUrl = options.plainHttp ? `http://localhost:${httpPort}` : `https://127.0.0.1:${httpsPort}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    // The CA as a newcomer fetches it; the API client below then verifies the hub against it.
    const ca = await waitFor(
      'the hub to serve its CA',
      async () => {
        if (options.plainHttp) {
          const answer = await plainRequest(`${baseUrl}/api/v1/tls/info`, {});
          return answer.status === 200 ? '' : undefined;
        }
        const answer = await tlsRequest(`${baseUrl}/api/v1/tls/ca.crt`, { insecure: true });
        return answer.status === 200 ? answer.body : undefined;
      },
      () =>
        child.exitCode !== null || child.signalCode !== null
          ? `the hub exited (${child.signalCode ?? `code ${String(child.exitCode)}`})`
          : undefined,
    );
    return { child, baseUrl, dataDir: path.join(dataDir, 'data'), ca, output: () => output, stop };
  } catch (error) {
    await stop();
    throw new Error(`the hub did not start: ${String(error)}\n${output}`, { cause: error });
  }
}

/**
 * A hub on a new place; on new ports again when another test process bound the picked ones first (the pick
 * is random, so that is rare, and it is not what a test here is about).
 */
async function startHubSomewhere(options: ConsoleOptions): Promise<{ place: HubPlace; hub: HubProcess }> {
  for (let attempt = 1; ; attempt += 1) {
    const place = await newHubPlace();
    try {
      return { place, hub: await startHub(options, place) };
    } catch (error) {
      fs.rmSync(place.root, { recursive: true, force: true });
      if (attempt === 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

/**
 * Goes to a page through the main navigation as a user would: at phone width the menu button first, then
 * the link of that label in its section. At phone width it returns once the menu has closed on arriving (at
 * most 3 s: the link of the page already open leaves it open), so the next call never sees a menu that is
 * about to close.
 */
export async function openNav(page: Page, label: string): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu' });
  const nav = page.getByRole('navigation', { name: 'Main' });
  const phone = await menu.isVisible();
  if (phone && (await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  await nav.getByRole('link', { name: label, exact: true }).click();
  if (!phone) return;
  for (let waited = 0; waited < 3_000; waited += 100) {
    if ((await menu.getAttribute('aria-expanded')) !== 'true') return;
    await sleep(100);
  }
}

/** Starts the hub and chromium for the tests of this file; see the file's comment. */
export function useConsole(options: ConsoleOptions = {}): () => ConsoleHarness {
  let harness: ConsoleHarness | undefined;
  let hub: HubProcess | undefined;
  let browser: Browser | undefined;

  let place: HubPlace | undefined;

  beforeAll(async () => {
    ({ place, hub } = await startHubSomewhere(options));
    const claimed = options.keepFirstRun
      ? null
      : await claimOwner(hub.baseUrl, hub.dataDir, hub.ca ? { ca: hub.ca } : {});
    browser = await chromium.launch({
      executablePath: chromiumFor(options),
      args: chromiumFlags,
      headless: true,
    });
    const viewport = options.viewport ?? { width: 1280, height: 800 };
    const emulation = {
      ...(options.touch ? { hasTouch: true, isMobile: true } : {}),
      ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
    };
    // English whatever the machine's language: the console follows the browser's (decision 0090), the tests
    // read English text.
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport,
      locale: browserLocale,
      ...emulation,
    });
    // Well under the test timeout, so a missing element fails with its locator named.
    context.setDefaultTimeout(actionTimeoutMs);
    const page = await context.newPage();
    const cspViolations: string[] = [];
    // Every page of the context, the first one and any a test opens.
    const watch = (c: BrowserContext) => {
      const watchPage = (p: Page) => {
        p.on('console', (message) => {
          if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
        });
      };
      c.pages().forEach(watchPage);
      c.on('page', watchPage);
    };
    watch(context);
    await context.addInitScript({ content: reportViolations });
    const { baseUrl, ca } = hub;
    const origin = new URL(baseUrl).origin;
    const api: ConsoleHarness['api'] = async (method, urlPath, body, key) => {
      const headers: Record<string, string> = { accept: 'application/json', origin };
      const bearer = key ?? claimed?.ownerKey;
      if (bearer) headers.authorization = `Bearer ${bearer}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const url = new URL(urlPath, baseUrl).toString();
      const payload = body !== undefined ? { body: JSON.stringify(body) } : {};
      const answer = options.plainHttp
        ? await plainRequest(url, { method, headers, ...payload })
        : await tlsRequest(url, { method, headers, ca, ...payload });
      let json: ApiAnswer['json'];
      try {
        json = answer.body ? (JSON.parse(answer.body) as ApiAnswer['json']) : {};
      } catch {
        json = {};
      }
      return { status: answer.status, headers: answer.headers, json, text: answer.body };
    };
    const users = new Map<string, Credentials>();
    const signInWith = async ({ username, password }: Credentials) => {
      const current = harness?.page ?? page;
      await current.goto(`${baseUrl}/dashboard`);
      await current.getByLabel('Username').fill(username);
      await current.getByLabel('Password').fill(password);
      await current.getByRole('button', { name: 'Sign in' }).click();
    };
    harness = {
      baseUrl,
      dataDir: hub.dataDir,
      ownerKey: claimed?.ownerKey ?? null,
      ownerPassword: claimed?.password ?? null,
      browser,
      context,
      page,
      cspViolations,
      api,
      hubOutput: () => hub?.output() ?? '',
      async stopHub() {
        await hub?.stop();
      },
      async startHub() {
        if (!place) throw new Error('the hub was never started');
        if (hub && hub.child.exitCode === null && hub.child.signalCode === null)
          throw new Error('the hub is still running');
        hub = await startHub(options, place);
      },
      signInWith,
      async signIn(role) {
        let credentials = users.get(role);
        if (!credentials) {
          if (role === 'owner') {
            if (!claimed) throw new Error('the owner is not claimed in this file');
            credentials = { username: 'owner', password: claimed.password };
          } else {
            credentials = { username: `${role}-user`, password: `${role}-password-long-enough` };
            const made = await api('POST', '/api/auth/users', { ...credentials, role });
            if (made.status !== 201)
              throw new Error(`creating the ${role} user: ${made.status} ${made.text}`);
          }
          users.set(role, credentials);
        }
        // A fresh page in a fresh context: no cookie of an earlier user.
        const fresh = await browser?.newContext({
          ignoreHTTPSErrors: true,
          viewport,
          locale: browserLocale,
          ...emulation,
        });
        if (!fresh || !harness) throw new Error('no browser');
        await harness.context.close();
        harness.context = fresh;
        watch(fresh);
        harness.page = await fresh.newPage();
        fresh.setDefaultTimeout(actionTimeoutMs);
        await fresh.addInitScript({ content: reportViolations });
        await signInWith(credentials);
        await harness.page.getByRole('navigation', { name: 'Main' }).waitFor();
        return credentials;
      },
      async screenshot(name) {
        if (process.env.SVC_SCREENSHOTS !== '1' || !harness) return;
        const current = harness.page;
        fs.mkdirSync(screenshotDir, { recursive: true });
        for (const theme of ['light', 'dark'] as const) {
          await current.emulateMedia({ colorScheme: theme });
          await current.evaluate(`document.documentElement.dataset.theme = ${JSON.stringify(theme)}`);
          await current.screenshot({ path: path.join(screenshotDir, `${name}-${theme}.png`) });
        }
      },
    };
  }, 90_000);

  // Any CSP violation fails the test it happened in (decision 0014): the console must work under its policy.
  afterEach(async () => {
    if (!harness) return;
    // A round trip to the page first, so a violation's console message sent before it has arrived.
    await harness.page.evaluate('0').catch(() => undefined);
    const seen = harness.cspViolations.splice(0);
    if (seen.length > 0)
      throw new Error(`the page reported Content Security Policy violations:\n${seen.join('\n')}`);
  });

  afterAll(async () => {
    await browser?.close();
    await hub?.stop();
    if (place) fs.rmSync(place.root, { recursive: true, force: true });
  });

  return () => {
    if (!harness) throw new Error('the console harness is not started');
    return harness;
  };
}
