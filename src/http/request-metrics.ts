import type { MiddlewareHandler } from 'hono';
import type { EventActor, EventType } from '../domain/events/event-trail.js';
import type { Metrics } from '../metrics/metrics.js';
import type { AppEnv } from './app-env.js';

/**
 * Counts and times every answer by method, route pattern and status, and hands the metrics to the
 * handlers (`c.get('metrics')`). The route is the registered pattern (`/api/v2/slowdns/install/confirm`),
 * never the raw path: a path is what a scanner chooses, and every new one would be a new series.
 *
 * The lifecycle transitions are counted here too, from the events the request's changes wrote (each
 * domain statement tells its change context, `c.get('recordedEvents')`, what it wrote): one per event, by
 * its type and actor, once the request has answered without an error, so a change rolled back with the
 * request is never counted and an idempotent repeat, which writes no event, neither.
 */
export function requestMetrics(metrics: Metrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const recorded: { type: EventType; actor: EventActor }[] = [];
    c.set('metrics', metrics);
    c.set('recordedEvents', {
      add(types, actor) {
        for (const type of types) recorded.push({ type, actor });
      },
    });
    try {
      await next();
    } finally {
      if (c.error === undefined) for (const { type, actor } of recorded) metrics.transition(type, actor);
      // A path no route matched is left with the app-wide middleware's pattern `*`.
      const route = c.req.routePath === '*' || c.req.routePath === '/*' ? 'unmatched' : c.req.routePath;
      metrics.observeRequest(
        { method: c.req.method, route, status: c.res.status },
        (performance.now() - started) / 1000,
      );
    }
  };
}
