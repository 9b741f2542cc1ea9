/**
 * Sending one notification on a channel: the HTTP kinds (generic webhook, ntfy, Slack- and Discord-compatible
 * incoming webhooks) through the egress-guarded client; email over SMTP with nodemailer, to the address the
 * guard resolved (plain SMTP only with the insecure-transport opt-in).
 */
import type { NotificationChannelKind, NotificationSeverity } from '@svc/protocol';
import nodemailer from 'nodemailer';
import type { OutboundClient } from '../../platform/outbound/outbound-client.js';
import { OutboundRefused } from '../../platform/outbound/outbound-refused.js';

export interface AlertItem {
  type: string;
  alertId: string;
  severity: NotificationSeverity;
  ts: string;
  summary: string;
  /** What depends on the alert's asset: "12 assets depend on this" (decision 0080); absent when nothing. */
  impact?: string;
}

export interface Notification {
  title: string;
  severity: NotificationSeverity;
  items: readonly AlertItem[];
  /** Alerts of the same window not listed in `items` (above the digest's limit). */
  more: number;
}

export interface ChannelTarget {
  kind: NotificationChannelKind;
  url: string | null;
  smtp: {
    host: string;
    port: number;
    security: 'tls' | 'starttls' | 'none';
    username: string | null;
    password: string | null;
    from: string;
    to: readonly string[];
  } | null;
}

const ntfyPriority: Record<NotificationSeverity, string> = { info: '3', warning: '4', critical: '5' };

function notificationText(note: Notification): string {
  const lines = note.items.map(
    (item) =>
      `[${item.severity}] ${item.type} ${item.summary} (${item.ts})${item.impact ? `\n  ${item.impact}` : ''}`,
  );
  if (note.more > 0) lines.push(`… and ${String(note.more)} more`);
  return lines.join('\n');
}

function httpBody(
  kind: NotificationChannelKind,
  note: Notification,
): { body: string; headers: Record<string, string> } {
  const text = notificationText(note);
  switch (kind) {
    case 'slack':
      return {
        body: JSON.stringify({ text: `*${note.title}*\n${text}` }),
        headers: { 'content-type': 'application/json' },
      };
    case 'discord':
      return {
        body: JSON.stringify({ content: `**${note.title}**\n${text}`.slice(0, 2000) }),
        headers: { 'content-type': 'application/json' },
      };
    case 'ntfy':
      return {
        body: text,
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          // Header values are ASCII: the title is the plain one.
          title: note.title.replace(/[^\x20-\x7e]/g, '?'),
          priority: ntfyPriority[note.severity],
          tags: note.severity === 'critical' ? 'rotating_light' : 'warning',
        },
      };
    case 'webhook':
    case 'email':
      return {
        body: JSON.stringify({
          type: 'svc.notification',
          title: note.title,
          severity: note.severity,
          alerts: note.items.map((item) => ({
            type: item.type,
            alert_id: item.alertId,
            severity: item.severity,
            ts: item.ts,
            summary: item.summary,
            impact: item.impact ?? null,
          })),
          more: note.more,
        }),
        headers: { 'content-type': 'application/json' },
      };
  }
}

export async function sendNotification(
  client: OutboundClient,
  target: ChannelTarget,
  note: Notification,
  signal: AbortSignal,
): Promise<void> {
  if (target.kind === 'email') {
    if (!target.smtp) throw new Error('email channel without SMTP settings');
    await sendEmail(client, target.smtp, note, signal);
    return;
  }
  if (target.url === null) throw new Error(`${target.kind} channel without a URL`);
  const { body, headers } = httpBody(target.kind, note);
  const response = await client.request(target.url, {
    method: 'POST',
    headers: { 'user-agent': 'svc-hub-notifications', ...headers },
    body,
    signal,
  });
  await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
  if (response.status < 200 || response.status >= 300) {
    throw new Error(`receiver answered ${String(response.status)}`);
  }
}

async function sendEmail(
  client: OutboundClient,
  smtp: NonNullable<ChannelTarget['smtp']>,
  note: Notification,
  signal: AbortSignal,
): Promise<void> {
  if (smtp.security === 'none' && !client.policy.allowInsecure) {
    throw new OutboundRefused(
      'insecure_transport',
      smtp.host,
      'plain SMTP needs the insecure-transport opt-in',
    );
  }
  const address = await client.resolve(smtp.host);
  const transport = nodemailer.createTransport({
    host: address,
    port: smtp.port,
    secure: smtp.security === 'tls',
    requireTLS: smtp.security === 'starttls',
    ignoreTLS: smtp.security === 'none',
    // The certificate is checked against the name, not the address dialled.
    tls: { servername: smtp.host },
    name: 'svc-hub',
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 10_000,
    ...(smtp.username !== null ? { auth: { user: smtp.username, pass: smtp.password ?? '' } } : {}),
  });
  const abort = () => {
    transport.close();
  };
  signal.addEventListener('abort', abort, { once: true });
  try {
    await transport.sendMail({
      from: smtp.from,
      to: [...smtp.to],
      subject: note.title,
      text: notificationText(note),
    });
  } finally {
    signal.removeEventListener('abort', abort);
    transport.close();
  }
}
