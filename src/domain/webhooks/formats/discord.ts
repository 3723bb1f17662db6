import type { ChatDigest } from './digest.js';

/**
 * Discord's execute-webhook body (https://discord.com/developers/docs/resources/webhook#execute-webhook):
 * `content` (≤ 2000 characters), one embed (description ≤ 4096), and `allowed_mentions: {parse: []}` so
 * that nothing in it pings anyone. Every value has Discord's markdown characters (`\ * _ ~ ` | > [ ] ( ) <`) escaped with a backslash, and `@`
 * followed by a zero-width space, so no `@everyone`, role or user mention, masked link or formatting comes
 * from a description, tag, reason or host name even where Discord would render one.
 */
function escapeDiscord(value: string): string {
  return value.replace(/[\\*_~`|>[\]()<]/g, (c) => `\\${c}`).replaceAll('@', '@\u200b');
}

const clip = (value: string, max: number) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);

export function discordMessage(digest: ChatDigest): object {
  const lines = digest.lines.map((line) => `• ${escapeDiscord(line.text)} ([open](${line.link}))`);
  if (digest.more > 0) lines.push(`…and ${digest.more.toLocaleString('en-US')} more.`);
  return {
    content: clip(escapeDiscord(digest.headline), 2000),
    embeds: [
      {
        title: 'Open in the SlowDNS console',
        url: digest.link,
        ...(lines.length > 0 ? { description: clip(lines.join('\n'), 4096) } : {}),
        timestamp: digest.timestamp,
      },
    ],
    allowed_mentions: { parse: [] },
  };
}
