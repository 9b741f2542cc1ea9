import type { CheckKind, CheckStatus, ServiceCheck, ServiceCheckResult } from '@svc/protocol';
import type { CheckResultRow, CheckRow } from './checks.repository.js';

export interface Uptime {
  day: { total: number; up: number } | undefined;
  week: { total: number; up: number } | undefined;
}

const share = (counts: { total: number; up: number } | undefined): number | null =>
  counts === undefined || counts.total === 0
    ? null
    : Math.round((counts.up / counts.total) * 10_000) / 10_000;

export function presentCheck(row: CheckRow, uptime: Uptime, now: Date): ServiceCheck {
  const expires = row.cert_expires_at === null ? null : Date.parse(row.cert_expires_at);
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as CheckKind,
    target: row.target,
    asset_id: row.asset_id,
    run_from_asset_id: row.run_from_asset_id,
    interval_seconds: row.interval_s,
    timeout_seconds: row.timeout_s,
    expected_status: row.expected_status === null ? null : (JSON.parse(row.expected_status) as number[]),
    expected_body: row.expected_body,
    tls_verify: row.tls_verify === 1,
    cert_warn_days: row.cert_warn_days,
    enabled: row.enabled === 1,
    status: row.status as CheckStatus,
    consecutive_failures: row.consecutive_failures,
    last_run_at: row.last_run_at,
    last_latency_ms: row.last_latency_ms,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    cert_expires_at: row.cert_expires_at,
    cert_expiring: expires !== null && expires - now.getTime() <= row.cert_warn_days * 24 * 60 * 60 * 1000,
    next_run_at: row.next_run_at,
    uptime_24h: share(uptime.day),
    uptime_7d: share(uptime.week),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentResult(row: CheckResultRow): ServiceCheckResult {
  return {
    id: row.id,
    check_id: row.check_id,
    at: row.at,
    ran: row.ran === 1,
    ok: row.ok === 1,
    latency_ms: row.latency_ms,
    status_code: row.status_code,
    error: row.error,
    cert_expires_at: row.cert_expires_at,
  };
}
