/** A connector's TLS mode, checked when stored and turned into the outbound client's certificate options. */
import { X509Certificate } from 'node:crypto';
import type { ConnectorTlsMode } from '@svc/protocol';
import { normalizeFingerprint, type OutboundTls } from '../../platform/outbound/outbound-client.js';

export interface ConnectorTls {
  mode: ConnectorTlsMode;
  /** PEM, for `pinned_ca`. */
  ca: string | null;
  /** SHA-256 of the upstream's certificate (lowercase hex), for `fingerprint`. */
  fingerprint: string | null;
}

/** What is wrong with a TLS choice, by field, or null when it can be used. Pure. */
export function tlsProblem(tls: ConnectorTls): { field: string; problem: string } | null {
  switch (tls.mode) {
    case 'pinned_ca': {
      if (tls.ca === null) return { field: 'tls_ca', problem: 'required when tls_mode is pinned_ca' };
      try {
        const cert = new X509Certificate(tls.ca);
        if (!cert.ca) return { field: 'tls_ca', problem: 'not a CA certificate' };
      } catch {
        return { field: 'tls_ca', problem: 'not a PEM certificate' };
      }
      return null;
    }
    case 'fingerprint':
      return tls.fingerprint === null
        ? { field: 'tls_fingerprint', problem: 'required when tls_mode is fingerprint' }
        : null;
    case 'system':
    case 'insecure':
      return null;
  }
}

/** The outbound client's options for this mode (`system`: the hub's own trust, nothing to add). */
export function outboundTlsOf(tls: ConnectorTls): { ca?: string; tls?: OutboundTls } {
  switch (tls.mode) {
    case 'pinned_ca':
      return tls.ca === null ? {} : { ca: tls.ca };
    case 'fingerprint':
      return tls.fingerprint === null
        ? {}
        : { tls: { verify: 'fingerprint', sha256: normalizeFingerprint(tls.fingerprint) } };
    case 'insecure':
      return { tls: { verify: 'none' } };
    case 'system':
      return {};
  }
}
