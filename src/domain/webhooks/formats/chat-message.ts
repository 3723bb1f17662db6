import type { WebhookFormat } from '../endpoints.js';
import { digestOf } from './digest.js';
import { discordMessage } from './discord.js';
import { googleChatMessage } from './google-chat.js';
import { slackMessage } from './slack.js';
import type { ChatEvent } from './summaries.js';
import { teamsMessage } from './teams.js';

export type ChatFormat = Exclude<WebhookFormat, 'standard'>;

const RENDER: Record<ChatFormat, typeof slackMessage> = {
  slack: slackMessage,
  discord: discordMessage,
  teams: teamsMessage,
  google_chat: googleChatMessage,
};

/**
 * The body of one chat message for the Standard Webhooks bodies an endpoint has waiting (each delivery's own
 * payload, oldest first): a link under CONSOLE_PUBLIC_URL, in the endpoint's format.
 */
export function chatMessageBody(format: ChatFormat, payloads: string[], consoleUrl: URL): string {
  const events = payloads.map((payload) => JSON.parse(payload) as ChatEvent);
  return JSON.stringify(RENDER[format](digestOf(events, consoleUrl)));
}
