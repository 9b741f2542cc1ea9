/**
 * What the `tailscale` CLI prints, as far as the hub reads it (../shared/design/upstreams.md §6). The CLI calls
 * its JSON "subject to change": every field is optional or nullable here, and unknown ones are ignored.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

const Maybe = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

export const TailscaleStatus = Type.Object({
  Version: Maybe(Type.String()),
  /** NoState | NeedsLogin | NeedsMachineAuth | Stopped | Starting | Running; exit status 0 for all of them. */
  BackendState: Type.String(),
  TailscaleIPs: Maybe(Type.Array(Type.String())),
  Self: Maybe(
    Type.Object({
      HostName: Maybe(Type.String()),
      /** With a trailing dot: `hub.tail1234.ts.net.` */
      DNSName: Maybe(Type.String()),
    }),
  ),
  CurrentTailnet: Maybe(
    Type.Object({
      Name: Maybe(Type.String()),
      MagicDNSSuffix: Maybe(Type.String()),
      MagicDNSEnabled: Maybe(Type.Boolean()),
    }),
  ),
  /** Null when the tailnet has not enabled HTTPS certificates. */
  CertDomains: Maybe(Type.Array(Type.String())),
});
export type TailscaleStatus = Static<typeof TailscaleStatus>;

const TcpPortHandler = Type.Object({
  HTTPS: Maybe(Type.Boolean()),
  HTTP: Maybe(Type.Boolean()),
  TCPForward: Maybe(Type.String()),
});

const HttpHandler = Type.Object({
  Proxy: Maybe(Type.String()),
  Text: Maybe(Type.String()),
  Path: Maybe(Type.String()),
});

const WebServerConfig = Type.Object({
  Handlers: Maybe(Type.Record(Type.String(), HttpHandler)),
});

const serveConfigFields = {
  TCP: Maybe(Type.Record(Type.String(), TcpPortHandler)),
  Web: Maybe(Type.Record(Type.String(), WebServerConfig)),
  AllowFunnel: Maybe(Type.Record(Type.String(), Type.Boolean())),
};

const ForegroundServeConfig = Type.Object(serveConfigFields);

/** `null` when serve was never configured, `{}` after `tailscale serve reset`. */
export const TailscaleServeStatus = Type.Union([
  Type.Null(),
  Type.Object({
    ...serveConfigFields,
    /** Configs held by a foreground `tailscale serve` (no `--bg`), by session id. */
    Foreground: Maybe(Type.Record(Type.String(), ForegroundServeConfig)),
  }),
]);
export type TailscaleServeStatus = Static<typeof TailscaleServeStatus>;
export type TailscaleServeConfig = Static<typeof ForegroundServeConfig>;

const statusCheck = Compile(TailscaleStatus);
const serveCheck = Compile(TailscaleServeStatus);

/** The parsed value, or null when the text is not JSON of that shape. */
export function parseTailscaleStatus(text: string): TailscaleStatus | null {
  const value = parseJson(text);
  return statusCheck.Check(value) ? value : null;
}

export function parseTailscaleServeStatus(text: string): TailscaleServeStatus | undefined {
  const value = parseJson(text);
  return serveCheck.Check(value) ? value : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
