import type { Logger } from '../logger.js';
import type { TracingSettings } from './settings.js';
import type { Tracing } from './tracing.js';

/**
 * Loads OpenTelemetry (a chunk of its own in the build, read only here) and starts exporting. Also sets
 * the process's span runner (active-tracing.ts) for the code handed no dependencies.
 */
export async function startTracing(settings: TracingSettings, logger: Logger): Promise<Tracing> {
  const { createTracing } = await import('./sdk.js');
  return createTracing(settings, logger);
}
