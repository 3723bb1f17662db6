import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { MiddlewareHandler } from 'hono';
import type { RequestSpanEnv } from './tracing.js';

/** Orchestrators' probes, asked every few seconds: their spans would be most of a trace store and say nothing. */
const PROBES = new Set(['/api/v2/healthz', '/api/v2/livez', '/api/v2/readyz']);

const propagator = new W3CTraceContextPropagator();
const headerGetter = {
  keys: (headers: Headers) => [...headers.keys()],
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
};

interface NodeBindings {
  incoming?: { httpVersion?: string };
}

/**
 * The server span of each request, by the HTTP semantic conventions: named `METHOD /route/pattern`
 * (the registered pattern, never the raw path), a child of the caller's W3C `traceparent` when it sent
 * one, and active while the request runs, so its statements, signatures and log lines are its
 * children. The answer says where it went: `traceresponse: 00-<trace id>-<span id>-<flags>` (W3C Trace
 * Context Level 2). The query string is left out: it is what a caller typed. A 5xx is an error; a 4xx is
 * the caller's, not the server's.
 */
export function requestSpans(tracer: Tracer): MiddlewareHandler<RequestSpanEnv> {
  return async (c, next) => {
    if (PROBES.has(c.req.path)) return next();
    const parent = propagator.extract(ROOT_CONTEXT, c.req.raw.headers, headerGetter);
    const url = new URL(c.req.url);
    const span = tracer.startSpan(
      c.req.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: c.req.method,
          [ATTR_URL_PATH]: url.pathname,
          [ATTR_URL_SCHEME]: url.protocol.slice(0, -1),
          [ATTR_SERVER_ADDRESS]: url.hostname,
          ...(url.port ? { [ATTR_SERVER_PORT]: Number(url.port) } : {}),
          ...(c.req.header('user-agent') ? { [ATTR_USER_AGENT_ORIGINAL]: c.req.header('user-agent') } : {}),
          ...((c.env as NodeBindings | undefined)?.incoming?.httpVersion
            ? { [ATTR_NETWORK_PROTOCOL_VERSION]: (c.env as NodeBindings).incoming!.httpVersion }
            : {}),
        },
      },
      parent,
    );
    const { traceId, spanId, traceFlags } = span.spanContext();
    // Set before the answer is made, as requestContext's headers are (a header set on a finished answer copies it).
    c.header('traceresponse', `00-${traceId}-${spanId}-0${traceFlags & 1}`);
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      const route = c.req.routePath === '*' || c.req.routePath === '/*' ? undefined : c.req.routePath;
      const status = c.res.status;
      if (route) {
        span.updateName(`${c.req.method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      const clientAddress = c.get('clientAddress');
      if (clientAddress && clientAddress !== 'unknown') span.setAttribute(ATTR_CLIENT_ADDRESS, clientAddress);
      const requestId = c.get('requestId');
      if (requestId) span.setAttribute('slowdns.request_id', requestId);
      if (status >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
  };
}
