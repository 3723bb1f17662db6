import type { ChatDigest } from './digest.js';

/**
 * A Google Chat incoming webhook (https://developers.google.com/workspace/chat/quickstart/webhooks): a text
 * message, `{"text": …}`, in Chat's own markup (https://developers.google.com/workspace/chat/format-messages),
 * where `<users/all>` mentions everyone and `<url|text>` is a link. `&`, `<` and `>` are written as HTML
 * entities in every value, and `*`, `_`, `~` and the backquote followed by a zero-width space, so no mention,
 * link or formatting comes from a description, tag, reason or host name.
 */
function escapeGoogleChat(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replace(/[*_~`]/g, (c) => `${c}\u200b`);
}

/** A text message holds at most 4096 characters. */
const clip = (value: string, max: number) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);

export function googleChatMessage(digest: ChatDigest): object {
  const lines = [`*SlowDNS*: ${escapeGoogleChat(digest.headline)}`];
  for (const line of digest.lines) lines.push(`• ${escapeGoogleChat(line.text)} <${line.link}|open>`);
  if (digest.more > 0) lines.push(`…and ${digest.more.toLocaleString('en-US')} more.`);
  lines.push(`<${digest.link}|Open in the SlowDNS console>`);
  return { text: clip(lines.join('\n'), 4096) };
}
