import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { ActivateRequestSchema, ConfirmRequestSchema, PrecheckRequestSchema } from '../../src/schemas/activation.js';
import { CheckinRequestSchema, RegisterRequestSchema } from '../../src/schemas/server.js';

// The server validates with the zod schemas the document is generated from: on the same input, the
// document's schema (as any client's validator reads it) and the server must agree.
const document = JSON.parse(readFileSync('openapi/openapi.json', 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(document, 'openapi.json');

type Objectish = { shape: Record<string, z.ZodTypeAny> };
const cases: [string, Objectish, string, unknown, boolean][] = [];
const add = (component: string, schema: unknown, field: string, accepted: unknown[], refused: unknown[]) => {
  for (const value of accepted) cases.push([component, schema as Objectish, field, value, true]);
  for (const value of refused) cases.push([component, schema as Objectish, field, value, false]);
};

add(
  'PrecheckRequest',
  PrecheckRequestSchema,
  'install_code',
  [
    'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N',
    'sdns sd 7k3mq2 xr9t4b hx3w8n',
    'SDNSSD7K3MQ2XR9T4BHX3W8N',
    'SDNS–SD–7K3MQ2–XR9T4B–HX3W8N',
    'ＳＤＮＳ-ＳＤ-7K3MQ2-XR9T4B-HX3W8N',
    ' SDNS-SD-7K3MQ2-XR9T4B-HX3W8N\n',
    'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N\u200B',
  ],
  ['', 'SDNS-SD-7K3MQ2', 'SDNS-SD-7K3MQ2-XR9T4B-HX3W8N; rm -rf /', 'SDNS/SD/7K3MQ2/XR9T4B/HX3W8N', 'x'.repeat(81)],
);
add(
  'PrecheckRequest',
  PrecheckRequestSchema,
  'machine_id',
  ['4c4c4544003957108052b4c04f384833', '4c4c4544003957108052b4c04f384833\n', '  4c4c4544003957108052b4c04f384833 '],
  [
    '4C4C4544003957108052B4C04F384833',
    '4c4c4544-0039-5710-8052-b4c04f384833',
    '4c4c4544003957108052b4c04f38483',
    `4c4c4544003957108052b4c04f384833${' '.repeat(40)}`,
  ],
);
add('PrecheckRequest', PrecheckRequestSchema, 'product', ['slowdns'], ['SlowDNS', 'other', '']);
add(
  'PrecheckRequest',
  PrecheckRequestSchema,
  'installer_version',
  ['2026.11.20.1', '2026.1.2.123456'],
  ['2026.11.20', 'v2026.11.20.1', '2026.11.20.1-rc1', ''],
);
const fp = 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8';
add(
  'PrecheckRequest',
  PrecheckRequestSchema,
  'ssh_fingerprint',
  [
    fp,
    ` ${fp}\n`,
    `256 ${fp} root@vpn1 (ED25519)`,
    `3072\t${fp}\tJane Doe's key (RSA)\n`,
    `256 ${fp}`,
    `\u00a0${fp}\ufeff`,
  ],
  [
    '',
    'SHA256:abc',
    `MD5:${fp.slice(7)}`,
    `${fp} root@vpn1`,
    `key 256 ${fp} x`,
    `256 ${fp}A x`,
    `\u001c${fp}`,
    `${fp}${' '.repeat(1024)}`,
  ],
);
add(
  'ActivateRequest',
  ActivateRequestSchema,
  'hostname',
  [
    'vpn1.example.net',
    'VPN1.Example.NET.',
    'localhost',
    ' vpn1.example.net\n',
    `${'a'.repeat(63)}.example.net`,
    `${'a.'.repeat(126)}a`,
    `${'a.'.repeat(126)}a.`,
  ],
  [
    '',
    '.',
    '-vpn.example.net',
    'vpn-.example.net',
    'vpn_1.example.net',
    'vpn1..example.net',
    `${'a'.repeat(64)}.example.net`,
    `${'a.'.repeat(127)}a`,
    'vpn 1.example.net',
    'vpn1.exämple.net',
  ],
);
add(
  'ActivateRequest',
  ActivateRequestSchema,
  'public_ip',
  [
    '203.0.113.7',
    '2001:db8::7',
    '2001:DB8::7',
    '::ffff:203.0.113.9',
    '::1',
    '::',
    '1:2:3:4:5:6:7::',
    '1::8',
    '1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:1.2.3.4',
    '::1.2.3.4',
    ' 203.0.113.7\n',
    '\t2001:db8::7 ',
    ' ::ffff:203.0.113.9',
  ],
  [
    '999.1.1.1',
    '203.0.113',
    'fe80::1%eth0',
    'vpn1.example.net',
    '',
    '203.0.113.7/24',
    ' 999.1.1.1 ',
    '01.2.3.4',
    '1.2.3.4.5',
    '2001:db8::7::1',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7::8',
    '12345::1',
    ':1:2::3',
    '1:2:3:4:5:6:7:1.2.3.4',
    ' fe80::1%eth0 ',
    '  ',
    '203.0.113.7 x',
    `${' '.repeat(60)}1.2.3.4`,
  ],
);
add(
  'ActivateRequest',
  ActivateRequestSchema,
  'requested_ref',
  ['main', 'release/2026.11', 'v1.4.2', 'feature/x_y-z', 'a'.repeat(100)],
  ['', '/main', 'main/', 'main.', 'main.lock', 'a..b', 'a//b', '-main', 'a'.repeat(101), 'main branch', 'mäin'],
);
add(
  'ActivateRequest',
  ActivateRequestSchema,
  'precheck_token',
  ['eyJ.e30.c2ln', 'x'.repeat(4096)],
  ['', 'x'.repeat(4097)],
);
add(
  'ConfirmRequest',
  ConfirmRequestSchema,
  'activation_id',
  ['act_3f9a12b45cd67e89'],
  ['act_3F9A12B45CD67E89', 'act_3f9a12b45cd67e8', 'srv_3f9a12b45cd67e89', ''],
);
add(
  'RegisterRequest',
  RegisterRequestSchema,
  'agent_version',
  ['2026.11.20.1', '1.4.2', '1.4.2-rc.1', '1.4.2+build.7'],
  ['1', 'v1.4.2', '1.4.2 rc', '1.2.3.4.5', ''],
);
add(
  'CheckinRequest',
  CheckinRequestSchema,
  'uptime_seconds',
  [0, 86400, Number.MAX_SAFE_INTEGER],
  [-1, 1.5, '86400', Number.MAX_SAFE_INTEGER + 2],
);
add(
  'CheckinRequest',
  CheckinRequestSchema,
  'services',
  [[], [{ name: 'slowdns-server.service', state: 'active' }], [{ name: 'getty@tty1.service', state: 'failed' }]],
  [
    [{ name: 'a b', state: 'active' }],
    [{ name: 'x.service', state: 'running' }],
    Array.from({ length: 33 }, (_, i) => ({ name: `s${i}`, state: 'active' })),
  ],
);

describe('the document and the server judge a field alike', () => {
  it.each(cases)('%s.%s: %j', (component, schema, field, value, accepted) => {
    const server = schema.shape[field]!.safeParse(value).success;
    const validate = ajv.getSchema(`openapi.json#/components/schemas/${component}/properties/${field}`)!;
    expect({ server, document: validate(value) }).toEqual({ server: accepted, document: accepted });
  });
});
