import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { ChatFormat } from '../../src/domain/webhooks/formats/chat-message.js';

const SCHEMA_FILES: Record<ChatFormat, string> = {
  slack: 'slack',
  discord: 'discord',
  teams: 'teams',
  google_chat: 'google-chat',
};

const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));

/** The JSON schema written from each platform's documentation (chat-schemas/, each naming its sources). */
export function platformSchema(format: ChatFormat): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv.compile(read(`./chat-schemas/${SCHEMA_FILES[format]}.schema.json`));
}

/** The platform's own example payloads (chat-fixtures/): `examples` the schema must accept, `refused` it must not. */
export function platformExamples(format: ChatFormat): { examples: unknown[]; refused: unknown[] } {
  const fixtures = read(`./chat-fixtures/${SCHEMA_FILES[format]}-examples.json`);
  return { examples: fixtures.examples, refused: fixtures.refused ?? [] };
}

export const CHAT_FORMATS: ChatFormat[] = ['slack', 'discord', 'teams', 'google_chat'];
