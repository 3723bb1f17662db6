import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  consoleCsp,
  renderConsoleView,
  type ConsoleAssets,
  type ConsoleView,
  type ConsoleViewer,
} from '../../console/console-frame.js';
import type { FormRefusal } from '../../http/console-session.js';
import type { AppEnv } from '../../http/app-env.js';

/**
 * The headers of every console answer, refusals included: never cached, the console's CSP, and no
 * referrer to another origin (`same-origin`, not `no-referrer`: under `no-referrer` a browser sends a
 * form's POST with `Origin: null`, which the same-origin check must refuse).
 */
export function setConsoleHeaders(c: Context<AppEnv>): void {
  c.header('Cache-Control', 'no-store');
  c.header('Content-Security-Policy', c.get('consoleCsp') ?? consoleCsp());
  c.header('Referrer-Policy', 'same-origin');
}

/** The signed-in operator of the request as the views show them. */
export function viewerOf(c: Context<AppEnv>): ConsoleViewer | undefined {
  const session = c.get('consoleSession');
  if (!session) return undefined;
  return {
    operator: session.operator,
    scope: session.scope,
    root: session.root,
    ...(session.issuer === undefined ? {} : { issuer: session.issuer }),
    formToken: session.formToken,
  };
}

/** Answers a view as an HTML page, with the console's headers. */
export function answerView(
  c: Context<AppEnv>,
  assets: ConsoleAssets,
  view: ConsoleView,
  status: ContentfulStatusCode = 200,
): Response {
  setConsoleHeaders(c);
  return c.html(renderConsoleView(assets, viewerOf(c), view), status);
}

/** A console request refused before it changed anything: answered as a page saying why (the console's onError). */
export class ConsoleRefusal extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly heading: string,
    message: string,
  ) {
    super(message);
  }
}

const FORM_REFUSALS: Record<FormRefusal, string> = {
  cross_site: 'This request came from another site, not from a page of this console. Nothing was changed.',
  form_token:
    'This form does not belong to your session (it was opened in another session, or is too old). Nothing was changed: open the page again and retry.',
};

/** Throws the refusal of a console form that failed its checks (see `formRefusal`). */
export function refuseForm(refusal: FormRefusal | undefined): void {
  if (refusal) throw new ConsoleRefusal(403, 'Action refused', FORM_REFUSALS[refusal]);
}
