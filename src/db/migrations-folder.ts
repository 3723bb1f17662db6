import { fileURLToPath } from 'node:url';

/** drizzle/ at the top of the repository, and dist/drizzle/ for the compiled server (same layout). */
export const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/**
 * True for the compiled server's migrations (dist/drizzle/, replaced whole by every build), false for the
 * repository's (running from src/ through tsx): a seed made at a fresh start is kept beside the first only. In
 * drizzle/ a migration edited before its release would leave a kept seed that no longer matches it.
 */
export const keepsMadeSeed = import.meta.url.endsWith('.js');
