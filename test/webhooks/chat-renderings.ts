/**
 * A static HTML rendering of each platform's message, as the platform's own client shows it (its markup
 * read as the platform documents it): enough for a person to look at what a channel would show
 * (chat-renderings.test.ts screenshots it). Not the platforms' code: their rules, written small.
 */
const escapeHtml = (s: string) =>
  s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** Slack mrkdwn: `<url|text>` links, `<!channel>` a mention, `*bold*`; &amp; &lt; &gt; shown as the characters. */
function slackText(text: string): string {
  const parts = text.split(/(<[^>]*>)/);
  return parts
    .map((part) => {
      const link = /^<(https?:[^|>]*)\|([^>]*)>$/.exec(part);
      if (link) return `<a href="${escapeHtml(link[1]!)}">${slackPlain(link[2]!)}</a>`;
      if (/^<!(channel|here|everyone)>$/.test(part)) return `<span class="mention">@${part.slice(2, -1)}</span>`;
      return slackPlain(part);
    })
    .join('');
}
const slackPlain = (s: string) =>
  escapeHtml(s.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&'))
    .replace(/\*([^*\n]+)\*/g, '<b>$1</b>')
    .replaceAll('\n', '<br>');

/** Discord markdown: backslash escapes, `[text](url)` links, `@everyone` a mention only if allowed. */
function discordText(text: string, mentions: boolean): string {
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      out.push(escapeHtml(text[++i]!));
      continue;
    }
    const link = /^\[([^\]]*)\]\((https?:[^)]*)\)/.exec(text.slice(i));
    if (link) {
      out.push(`<a href="${escapeHtml(link[2]!)}">${escapeHtml(link[1]!)}</a>`);
      i += link[0].length - 1;
      continue;
    }
    if (text.startsWith('@everyone', i)) {
      out.push(mentions ? '<span class="mention">@everyone</span>' : '@everyone');
      i += 8;
      continue;
    }
    out.push(c === '\n' ? '<br>' : escapeHtml(c));
  }
  return out.join('');
}

/** Google Chat: `<url|text>` links, `<users/all>` a mention, `*bold*`; HTML entities shown as characters. */
function googleChatText(text: string): string {
  return text
    .split(/(<[^>]*>)/)
    .map((part) => {
      const link = /^<(https?:[^|>]*)\|([^>]*)>$/.exec(part);
      if (link) return `<a href="${escapeHtml(link[1]!)}">${escapeHtml(link[2]!)}</a>`;
      if (part === '<users/all>') return '<span class="mention">@all</span>';
      return escapeHtml(part.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&'))
        .replace(/\*([^*\n]+)\*/g, '<b>$1</b>')
        .replaceAll('\n', '<br>');
    })
    .join('');
}

const STYLE = `body{font:15px system-ui,sans-serif;margin:16px;background:#fff;color:#1d1c1d;width:760px}
.msg{display:flex;gap:10px;margin:10px 0;padding:10px;border-radius:6px}.avatar{width:36px;height:36px;border-radius:6px;background:#2a6;color:#fff;display:grid;place-items:center;font-weight:700}
.who{font-weight:700}.ctx{color:#616061;font-size:13px}.mention{background:#f2c744;padding:0 2px;border-radius:3px}
.slack{border-left:4px solid #4a154b}.discord{background:#313338;color:#dbdee1}.discord a{color:#00a8fc}.embed{border-left:4px solid #1e1f22;background:#2b2d31;padding:8px 12px;margin-top:6px;border-radius:4px}
.teams{background:#f5f5f5}.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px;max-width:640px}.button{display:inline-block;margin-top:10px;padding:6px 12px;border:1px solid #5b5fc7;color:#5b5fc7;border-radius:4px}
.gchat{border-left:4px solid #1a73e8}h2{font-size:13px;color:#888;margin:18px 0 0}`;

/** The page: one message per format, each as its platform would show it. */
export function renderedMessages(bodies: { format: string; body: any }[]): string {
  const sections = bodies.map(({ format, body }) => {
    if (format === 'slack') {
      const blocks = body.blocks
        .map((b: any) =>
          b.type === 'context'
            ? `<div class="ctx">${b.elements.map((e: any) => slackText(e.text)).join(' ')}</div>`
            : `<div>${slackText(b.text.text)}</div>`,
        )
        .join('');
      return `<h2>Slack</h2><div class="msg slack"><div class="avatar">S</div><div><div class="who">SlowDNS <span class="ctx">APP</span></div>${blocks}</div></div>`;
    }
    if (format === 'discord') {
      const mentions = (body.allowed_mentions?.parse ?? ['everyone']).includes('everyone');
      const embed = body.embeds[0];
      return `<h2>Discord</h2><div class="msg discord"><div class="avatar">S</div><div><div class="who">SlowDNS <span class="ctx">BOT</span></div><div>${discordText(body.content, mentions)}</div><div class="embed"><a href="${escapeHtml(embed.url)}"><b>${escapeHtml(embed.title)}</b></a>${embed.description ? `<div>${discordText(embed.description, mentions)}</div>` : ''}</div></div></div>`;
    }
    if (format === 'teams') {
      const card = body.attachments[0].content;
      const items = card.body
        .map((e: any) =>
          e.type === 'TextBlock'
            ? `<div style="font-weight:700;font-size:17px">${escapeHtml(e.text)}</div>`
            : `<div>${e.inlines.map((r: any) => escapeHtml(r.text)).join('')}</div>`,
        )
        .join('');
      const actions = card.actions
        .map((a: any) => `<a class="button" href="${escapeHtml(a.url)}">${escapeHtml(a.title)}</a>`)
        .join(' ');
      return `<h2>Microsoft Teams</h2><div class="msg teams"><div class="avatar">W</div><div><div class="who">Workflows</div><div class="card">${items}${actions}</div></div></div>`;
    }
    return `<h2>Google Chat</h2><div class="msg gchat"><div class="avatar">S</div><div><div class="who">SlowDNS <span class="ctx">Webhook</span></div><div>${googleChatText(body.text)}</div></div></div>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chat messages</title><style>${STYLE}</style></head><body>${sections.join('')}</body></html>`;
}
