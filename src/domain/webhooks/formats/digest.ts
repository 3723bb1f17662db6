import { consolePathOf, countedAs, summaryOf, type ChatEvent } from './summaries.js';

/** Lines a chat message lists at most; a digest counts the rest and links to the console for them. */
const DIGEST_LINES = 10;

/** One chat message: what happened in plain text (each format escapes it), and the console links. */
export interface ChatDigest {
  /** One event: its line. Several: how many of each kind. */
  headline: string;
  /** The events listed (at most DIGEST_LINES), oldest first; empty when the headline is the one event. */
  lines: { text: string; link: string }[];
  /** Events not listed. */
  more: number;
  /** Where to look: the one event's object, or the console's events. */
  link: string;
  /** The newest event's time (ISO). */
  timestamp: string;
}

/**
 * The message for the events an endpoint has waiting (at most one message a minute, DESIGN §28): the event
 * itself when there is one, else a digest that counts them by kind and lists the first few.
 */
export function digestOf(events: ChatEvent[], consoleUrl: URL): ChatDigest {
  const link = (path: string) => new URL(path, consoleUrl).href;
  const newest = events.at(-1)!;
  if (events.length === 1)
    return {
      headline: summaryOf(newest),
      lines: [],
      more: 0,
      link: link(consolePathOf(newest)),
      timestamp: newest.timestamp,
    };
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
  const kinds = [...counts].sort((a, b) => b[1] - a[1]).map(([type, count]) => countedAs(type, count));
  const listed = events.slice(0, DIGEST_LINES);
  return {
    headline: `${events.length.toLocaleString('en-US')} SlowDNS events (${kinds.join('; ')}).`,
    lines: listed.map((event) => ({ text: summaryOf(event), link: link(consolePathOf(event)) })),
    more: events.length - listed.length,
    link: link(counts.size === 1 ? `/admin/events?type=${encodeURIComponent(newest.type)}` : '/admin/events'),
    timestamp: newest.timestamp,
  };
}
