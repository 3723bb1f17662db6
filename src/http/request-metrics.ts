import type { MiddlewareHandler } from 'hono';
import type { Metrics } from '../metrics/metrics.js';
import type { AppEnv } from './app-env.js';

/**
 * Counts and times every answer by method, route pattern and status, and hands the metrics to the
 * handlers (`c.var.metrics`). The route is the registered pattern (`/api/v2/slowdns/install/confirm`),
 * never the raw path: a path is what a scanner chooses, and every new one would be a new series.
 */
export function requestMetrics(metrics: Metrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    c.set('metrics', metrics);
    try {
      await next();
    } finally {
      // A path no route matched is left with the app-wide middleware's pattern `*`.
      const route = c.req.routePath === '*' || c.req.routePath === '/*' ? 'unmatched' : c.req.routePath;
      metrics.observeRequest(
        { method: c.req.method, route, status: c.res.status },
        (performance.now() - started) / 1000,
      );
    }
  };
}
