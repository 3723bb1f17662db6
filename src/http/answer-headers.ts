import type { Context } from 'hono';
import type { AppEnv } from './app-env.js';

/** What @hono/node-server hands each request as its env: the Node request and response. */
export interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string } };
  outgoing?: { setHeader(name: string, value: string): unknown; readonly headersSent: boolean };
}

/**
 * Sets a header of this request's answer, whatever the answer turns out to be (an error's too). On a Node
 * listener it goes straight onto the Node response, which writes it with the answer's own headers: set on the
 * context instead, it made hono build a web `Headers` for every answer, which @hono/node-server then copied
 * back into a plain object (~2 µs a header each way). Without a Node response (an in-process `app.request`),
 * on the context. Names go out in lower case, as a web `Headers` writes them.
 */
export function setAnswerHeader(c: Context<AppEnv>, name: string, value: string): void {
  const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
  if (outgoing && !outgoing.headersSent) outgoing.setHeader(name.toLowerCase(), value);
  else c.header(name, value);
}
