import { fileURLToPath } from 'node:url';

/** drizzle/ at the top of the repository, and dist/drizzle/ for the compiled server (same layout). */
export const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));
