import type { ChatDigest } from './digest.js';

/**
 * Slack's incoming webhook (https://api.slack.com/messaging/webhooks): `text` (the notification and the
 * fallback) and Block Kit `blocks`. `&`, `<` and `>` are Slack's control characters
 * (https://api.slack.com/reference/surfaces/formatting#escaping): escaped in every value, so no `<!channel>`
 * or `<url|text>` can come from a description, tag, reason or host name.
 */
function escapeSlack(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Section text is limited to 3000 characters. */
const clip = (value: string, max: number) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);

export function slackMessage(digest: ChatDigest): object {
  const lines = digest.lines.map((line) => `• ${escapeSlack(line.text)} <${line.link}|open>`);
  if (digest.more > 0) lines.push(`…and ${digest.more.toLocaleString('en-US')} more.`);
  const blocks: object[] = [
    { type: 'section', text: { type: 'mrkdwn', text: clip(escapeSlack(digest.headline), 3000) } },
  ];
  if (lines.length > 0) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: clip(lines.join('\n'), 3000) } });
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `<${digest.link}|Open in the SlowDNS console>` }],
  });
  return { text: clip(escapeSlack(digest.headline), 3000), blocks };
}
