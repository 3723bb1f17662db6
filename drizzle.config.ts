import { defineConfig } from 'drizzle-kit';

// Generation only needs the schema; the server applies drizzle/ at start (src/db/migrate.ts).
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
});
