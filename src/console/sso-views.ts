import type { ConsoleView } from './console-frame.js';
import { html } from '../html.js';

/** Why a sign-in with the identity provider was refused, in words for the person (DESIGN §26). */
export const SSO_REFUSALS = {
  no_flow: {
    heading: 'No sign-in in progress',
    text: 'This page answers a sign-in started from this console in this browser within the last 10 minutes, and each sign-in only once. None is in progress here (it was finished already, took too long, or was started elsewhere). Start again from the console.',
  },
  state: {
    heading: 'Sign-in refused',
    text: 'The answer from the identity provider does not belong to the sign-in started in this browser (its state does not match). Nobody was signed in. Start again from the console.',
  },
  provider_refused: {
    heading: 'Sign-in refused by the identity provider',
    text: 'The identity provider did not sign you in (you cancelled, or it refused this console). Nobody was signed in.',
  },
  code: {
    heading: 'Sign-in refused',
    text: 'The identity provider refused the sign-in code (it was used already, or has expired). Nobody was signed in. Start again from the console.',
  },
  id_token: {
    heading: 'Sign-in refused',
    text: 'The identity provider’s answer did not pass verification (its signature, issuer, audience, lifetime or nonce). Nobody was signed in. If it keeps happening, the service log says which check failed.',
  },
  no_role: {
    heading: 'No access to this console',
    text: 'The identity provider signed you in, but none of your groups is given a role in this console (OIDC_ROLES), so no session was opened. Ask whoever runs this service to add one of your groups.',
  },
  unavailable: {
    heading: 'The identity provider cannot be reached',
    text: 'The console could not reach the identity provider, so nobody can sign in with it now. Try again in a minute; ADMIN_TOKEN still signs in (break-glass).',
  },
} as const;

export function ssoRefusalView(reason: keyof typeof SSO_REFUSALS): ConsoleView {
  const { heading, text } = SSO_REFUSALS[reason];
  return {
    title: heading,
    heading,
    content: html`  <section class="card" aria-labelledby="refusal-heading">
    <h2 id="refusal-heading" class="visually-hidden">What happened</h2>
    <p id="sign-in-refusal" class="status" data-tone="error" role="alert" data-reason="${reason}">${text}</p>
    <p><a href="/admin">Back to the sign-in page</a></p>
  </section>`,
  };
}

/**
 * Signed in: the page refreshes itself to the console at once. The callback is reached from the provider's
 * site, so the browser did not send the Strict session cookie with it; the refresh is a same-origin
 * navigation, which sends it.
 */
export function ssoSignedInView(operator: string, returnTo: string): ConsoleView {
  return {
    title: 'Signed in',
    heading: 'Signed in',
    content: html`  <section class="card" aria-labelledby="signed-in-heading">
    <h2 id="signed-in-heading" class="visually-hidden">Signed in</h2>
    <p class="status" data-tone="success" role="status">Signed in as <strong>${operator}</strong>.</p>
    <p><a id="continue" href="${returnTo}">Open the console</a></p>
  </section>`,
  };
}
