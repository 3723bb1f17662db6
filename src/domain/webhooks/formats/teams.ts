import type { ChatDigest } from './digest.js';

/**
 * A Teams Workflows webhook ("Post to a channel when a webhook request is received",
 * https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/connectors-using):
 * a `message` whose one attachment is an Adaptive Card (https://adaptivecards.io/explorer/). Every value goes
 * in a `TextRun` of a `RichTextBlock`, which Adaptive Cards never read as markdown, and the card declares no
 * `msteams.entities`, so no `<at>` mention or `[text](url)` link can come from a value. The retired Office
 * 365 connectors' MessageCard is not sent.
 */
const run = (text: string) => ({ type: 'TextRun', text });

export function teamsMessage(digest: ChatDigest): object {
  const body: object[] = [
    { type: 'TextBlock', text: 'SlowDNS', weight: 'Bolder', size: 'Medium', wrap: true },
    { type: 'RichTextBlock', inlines: [run(digest.headline)] },
  ];
  for (const line of digest.lines) body.push({ type: 'RichTextBlock', inlines: [run(`• ${line.text}`)] });
  if (digest.more > 0)
    body.push({ type: 'RichTextBlock', inlines: [run(`…and ${digest.more.toLocaleString('en-US')} more.`)] });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          actions: [{ type: 'Action.OpenUrl', title: 'Open in the SlowDNS console', url: digest.link }],
        },
      },
    ],
  };
}
