#!/usr/bin/env node
// The `slowdns` operator command: the TypeScript sources run through tsx, as `npm start` runs the server.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
