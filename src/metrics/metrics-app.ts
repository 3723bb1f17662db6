import { Hono } from 'hono';
import { envelopeOf } from '../schemas/envelope.js';
import type { Metrics } from './metrics.js';

/**
 * The Prometheus endpoint, on its own listener (`METRICS_PORT`): `GET /metrics` in the text exposition
 * format. It is not part of the public API or its OpenAPI document, and it needs no credential: who can
 * reach the port can read the counts, so bind it where only the scraper can (the default is loopback).
 */
export function createMetricsApp(metrics: Metrics): Hono {
  const app = new Hono();
  app.get('/metrics', async (c) => {
    const body = await metrics.registry.metrics();
    return c.body(body, 200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
  });
  app.notFound((c) => c.json(envelopeOf('not_found', 'Only GET /metrics is served on this port.'), 404));
  return app;
}
