import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRoute, z } from '@hono/zod-openapi';
import type { Router } from '../http/router.js';
import { errorResponses } from '../schemas/envelope.js';
import { headerRef } from '../schemas/response-headers.js';
import { prose } from '../openapi-prose.js';

/** The shell client, served byte for byte as committed, and its SHA-256. */
export interface InstallerScript {
  body: string;
  sha256: string;
}

/** Read once when the app is built, next to this module (no build step): a missing file stops the start. */
export function loadInstallerScript(): InstallerScript {
  const body = readFileSync(new URL('../../clients/shell/activate.sh', import.meta.url), 'utf8');
  return { body, sha256: createHash('sha256').update(body).digest('hex') };
}

const CONTENT_TYPE = 'text/plain; charset=utf-8';
const MEDIA_TYPE = 'text/plain';

const script = createRoute({
  method: 'get',
  path: '/slowdns/activate.sh',
  operationId: 'getInstallerScript',
  tags: ['install'],
  security: [],
  summary: 'The shell activation client',
  description: prose`\`activate.sh\`: one POSIX sh script that needs only \`curl\` (and uses \`jq\` when present). It runs
    precheck, activate and confirm around an install command, releases the activation on failure or on a
    signal, resumes an unfinished install from its state file, and exits with a stable code per error family.
    Served as \`text/plain\` so that it can be read in a browser before it is run; its SHA-256 is at \`GET
    /slowdns/activate.sh.sha256\`. Usage: \`SLOWDNS_URL=<this service> SLOWDNS_INSTALL_CODE=<code> sh
    activate.sh run -- ./install.sh\` (the code travels in the environment, never on the command line). The
    README in \`clients/shell/\` documents every command, variable and exit code.`,
  responses: {
    200: {
      description: 'The script.',
      headers: {
        'Cache-Control': headerRef('Cache-Control', 'Always `no-cache`: a new release is picked up at once.'),
      },
      content: {
        [MEDIA_TYPE]: {
          schema: z.string().max(262_144).openapi({ example: '#!/bin/sh\n# SlowDNS activation client …' }),
        },
      },
    },
    ...errorResponses(),
  },
});

const checksum = createRoute({
  method: 'get',
  path: '/slowdns/activate.sh.sha256',
  operationId: 'getInstallerScriptChecksum',
  tags: ['install'],
  security: [],
  summary: 'SHA-256 of the shell activation client',
  description:
    'One line in the format of `sha256sum`: the hex SHA-256 of `GET /slowdns/activate.sh`, two spaces and `activate.sh`. Check a download with `sha256sum -c activate.sh.sha256` next to it.',
  responses: {
    200: {
      description: 'The checksum line.',
      headers: { 'Cache-Control': headerRef('Cache-Control', 'Always `no-cache`.') },
      content: {
        [MEDIA_TYPE]: {
          schema: z
            .string()
            .max(80)
            .regex(/^[0-9a-f]{64} {2}activate\.sh\n$/)
            .openapi({ example: `${'0'.repeat(64)}  activate.sh\n` }),
        },
      },
    },
    ...errorResponses(),
  },
});

export function registerInstallerScript(app: Router, installer: InstallerScript): void {
  app.openapi(script, (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.text(installer.body, 200, { 'Content-Type': CONTENT_TYPE });
  });
  app.openapi(checksum, (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.text(`${installer.sha256}  activate.sh\n`, 200, { 'Content-Type': CONTENT_TYPE });
  });
}
