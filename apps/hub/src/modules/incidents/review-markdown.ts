/**
 * An incident's review as Markdown (decision 0080). Everything that is not ours (what people wrote, titles,
 * asset and rule names, audit actions) goes through `escapeMarkdown`: every ASCII punctuation character is
 * backslash-escaped (CommonMark lets any be), leading spaces are dropped (four would open a code block), so
 * no text can open a heading, list, quote, table, code block, link, image or HTML tag, nor end ours.
 */
import type { IncidentReview } from '@svc/protocol';

const punctuation = /[!-/:-@[-`{-~]/g;

/** One line of text, inert in Markdown. */
function escapeLine(line: string): string {
  return line.trimStart().replace(punctuation, (c) => `\\${c}`);
}

/** Text of one or more lines, inert in Markdown; blank lines stay paragraph breaks. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map(escapeLine)
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A single-line field: its line breaks become spaces, so it cannot leave the list item or cell it is in. */
function inline(text: string): string {
  return escapeMarkdown(text.replace(/\s+/g, ' '));
}

function section(title: string, text: string): string[] {
  const body = escapeMarkdown(text);
  return [`## ${title}`, '', body === '' ? '_Not written yet._' : body, ''];
}

export function reviewMarkdown(review: IncidentReview): string {
  const { incident } = review;
  const lines: string[] = [
    `# Incident review: ${inline(incident.title)}`,
    '',
    `- Incident: ${inline(incident.id)}`,
    `- Asset: ${inline(incident.asset_id)}`,
    `- Severity: ${inline(incident.severity)}`,
    `- Status: ${inline(incident.status)}`,
    `- Opened: ${inline(incident.opened_at)}`,
    `- Resolved: ${incident.resolved_at === null ? 'not yet' : inline(incident.resolved_at)}`,
    `- Alerts: ${String(incident.alert_count)}`,
    '',
    ...section('Summary', review.summary),
    ...section('Cause', review.cause),
    '## Follow-ups',
    '',
    ...(review.follow_ups.length === 0
      ? ['_None yet._']
      : review.follow_ups.map((f) => `- [${f.done ? 'x' : ' '}] ${inline(f.text)}`)),
    '',
    '## Timeline',
    '',
    ...review.timeline.map(
      (e) =>
        `- ${inline(e.ts)} ${inline(e.source)}: ${inline(e.text)}${e.actor === null ? '' : ` (by ${inline(e.actor)})`}`,
    ),
  ];
  if (review.timeline.length === 0) lines.push('_Nothing recorded._');
  if (review.note !== null) lines.push('', `_${inline(review.note)}_`);
  if (review.updated_at !== null) {
    lines.push(
      '',
      `_Review last written ${inline(review.updated_at)}${review.updated_by === null ? '' : ` by ${inline(review.updated_by)}`}._`,
    );
  }
  return `${lines.join('\n')}\n`;
}
