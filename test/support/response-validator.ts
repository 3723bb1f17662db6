import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenApiDocument } from '../../src/openapi-document.js';

/**
 * Every answer a test receives is checked against the document the app serves: the status is
 * documented for the operation, the content type is the documented one, every required header is
 * there and every documented header is well-formed, the body matches its schema (JSON Schema
 * 2020-12, as OpenAPI 3.1 says) and an error's `code` is one the document lists for that status.
 */

interface HeaderObject {
  required?: boolean;
  schema?: { type?: string };
}
interface ResponseObject {
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, { examples?: Record<string, unknown> }>;
}
interface Operation {
  responses?: Record<string, ResponseObject | { $ref: string }>;
}
interface Document {
  paths?: Record<string, Record<string, Operation>>;
  components?: { headers?: Record<string, HeaderObject>; responses?: Record<string, ResponseObject> };
}

const DOCUMENT_ID = 'openapi.json';
const pointer = (...parts: string[]) =>
  `${DOCUMENT_ID}#/${parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

let validated = 0;
/** How many answers were validated in this test process since the last call (the run's count is their sum). */
export function takeValidatedCount(): number {
  const count = validated;
  validated = 0;
  return count;
}

export class ResponseValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: { path: string; pattern: RegExp }[];

  /** `counted: false` for a validator whose answers are made up (the validator's own test), not the app's. */
  constructor(
    private readonly document: Document,
    private readonly options: { counted: boolean } = { counted: true },
  ) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema(document as object, DOCUMENT_ID);
    this.templates = Object.keys(document.paths ?? {}).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** The problems of one answer (empty when it is as documented). Reads a clone of the body. */
  /**
   * `sentHeaders`: what the app set on the Node response itself (src/http/answer-headers.ts: `getHeaders()`,
   * names in lower case), which goes out with the answer's own headers.
   */
  async problems(method: string, url: string, res: Response, sentHeaders: SentHeaders = {}): Promise<string[]> {
    const pathname = new URL(url, 'http://test.invalid').pathname;
    const path = this.documentedPath(pathname);
    const verb = method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase();
    const operation = path ? this.document.paths![path]![verb] : undefined;
    const where = `${method.toUpperCase()} ${pathname} answered ${res.status}`;

    let responsePointer: string[];
    if (operation) {
      const status = String(res.status);
      const key = operation.responses?.[status]
        ? status
        : operation.responses?.[`${status[0]}XX`]
          ? `${status[0]}XX`
          : operation.responses?.default
            ? 'default'
            : undefined;
      if (!key) return [`${where}, a status its OpenAPI responses do not document`];
      responsePointer = ['paths', path!, verb, 'responses', key];
    } else if (res.status === 405) {
      responsePointer = ['components', 'responses', 'MethodNotAllowed'];
    } else if (res.status === 404 && !path && !isHtml(res)) {
      responsePointer = ['components', 'responses', 'NotFound'];
    } else {
      // Plain routes left out of the document on purpose (/openapi.json, /docs, the page's assets, the
      // console's pages, whose refusals, a 404 included, are pages for people).
      return [];
    }
    if (this.options.counted) validated += 1;
    const response = this.resolve<ResponseObject>(responsePointer);
    return [
      ...this.headerProblems(response, responsePointer, res, sentHeaders),
      ...(await this.bodyProblems(method, response, responsePointer, res)),
    ].map((p) => `${where}: ${p}`);
  }

  async assert(method: string, url: string, res: Response): Promise<void> {
    const problems = await this.problems(method, url, res);
    if (problems.length) throw new Error(`answer not as documented:\n${problems.join('\n')}`);
  }

  private documentedPath(pathname: string): string | undefined {
    if (this.document.paths?.[pathname]) return pathname;
    return this.templates.find((t) => t.pattern.test(pathname))?.path;
  }

  private resolve<T>(parts: string[]): T {
    let node: unknown = this.document;
    for (const part of parts) node = (node as Record<string, unknown>)[part];
    const ref = (node as { $ref?: string }).$ref;
    return (
      ref
        ? this.resolve(
            ref
              .replace(/^#\//, '')
              .split('/')
              .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')),
          )
        : node
    ) as T;
  }

  private schema(parts: string[]): ValidateFunction {
    const id = pointer(...parts);
    let validate = this.compiled.get(id);
    if (!validate) {
      validate = this.ajv.getSchema(id);
      if (!validate) throw new Error(`no schema at ${id}`);
      this.compiled.set(id, validate);
    }
    return validate;
  }

  private headerProblems(response: ResponseObject, at: string[], res: Response, sentHeaders: SentHeaders): string[] {
    const problems: string[] = [];
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      const componentName = '$ref' in declared ? declared.$ref.split('/').pop()! : undefined;
      const header = componentName ? this.document.components!.headers![componentName]! : (declared as HeaderObject);
      const sent = sentHeaders[name.toLowerCase()];
      const value = res.headers.get(name) ?? (sent === undefined ? null : [sent].flat().join(', '));
      if (value === null) {
        if (header.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      if (!header.schema) continue;
      const schemaAt = componentName
        ? ['components', 'headers', componentName, 'schema']
        : [...at, 'headers', name, 'schema'];
      const type = header.schema.type;
      const parsed =
        type === 'integer' || type === 'number' ? (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value) : value;
      const validate = this.schema(schemaAt);
      if (!validate(parsed))
        problems.push(
          `header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors, { dataVar: 'value' })}`,
        );
    }
    return problems;
  }

  private async bodyProblems(method: string, response: ResponseObject, at: string[], res: Response): Promise<string[]> {
    const text = method.toUpperCase() === 'HEAD' ? '' : await res.clone().text();
    const mediaTypes = Object.keys(response.content ?? {});
    const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaTypes.length === 0) return text === '' ? [] : [`a body, where the document declares none`];
    if (method.toUpperCase() === 'HEAD') return [];
    const mediaType = mediaTypes.find((m) => m.toLowerCase() === contentType);
    if (!mediaType)
      return [`content type ${JSON.stringify(contentType)}, where the document declares ${mediaTypes.join(' or ')}`];
    if (!mediaType.includes('json')) return [];
    if (mediaType === 'application/x-ndjson') return this.linesProblems([...at, 'content', mediaType, 'schema'], text);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`a body that is not JSON: ${JSON.stringify(text.slice(0, 80))}`];
    }
    const validate = this.schema([...at, 'content', mediaType, 'schema']);
    if (!validate(body)) return [`body ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`];
    const code = (body as { error?: { code?: unknown } }).error?.code;
    const listed = response.content![mediaType]!.examples;
    if (res.status >= 400 && listed && !(typeof code === 'string' && code in listed)) {
      return [
        `error code ${JSON.stringify(code)}, which the document does not list for this status (${Object.keys(listed).join(', ')})`,
      ];
    }
    return [];
  }

  /** NDJSON: every line one JSON value the schema admits, each ended by a newline. */
  private linesProblems(schemaAt: string[], text: string): string[] {
    if (text === '') return [];
    if (!text.endsWith('\n')) return ['an NDJSON body that does not end with a newline'];
    const validate = this.schema(schemaAt);
    const problems: string[] = [];
    for (const [i, line] of text.slice(0, -1).split('\n').entries()) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        problems.push(`line ${i + 1} is not JSON: ${JSON.stringify(line.slice(0, 80))}`);
        continue;
      }
      if (!validate(value)) problems.push(`line ${i + 1} ${this.ajv.errorsText(validate.errors, { dataVar: 'line' })}`);
      if (problems.length >= 5) break;
    }
    return problems;
  }
}

function isHtml(res: Response): boolean {
  return (res.headers.get('content-type') ?? '').startsWith('text/html');
}

/** The headers a Node response holds before it is written (`ServerResponse.getHeaders()`). */
export type SentHeaders = Record<string, string | number | string[] | undefined>;

const validators = new WeakMap<object, ResponseValidator>();

/** The validator of a document, compiled once per document. */
export function responseValidator(document: OpenApiDocument): ResponseValidator {
  let validator = validators.get(document);
  if (!validator) validators.set(document, (validator = new ResponseValidator(document as Document)));
  return validator;
}

const unreported: string[] = [];

/**
 * For answers checked where a test cannot be failed directly (inside a served app, whose exceptions
 * become 500s): the problems are kept, and the test harness fails the test after it ran.
 */
export async function recordProblems(
  document: OpenApiDocument,
  method: string,
  url: string,
  res: Response,
  sentHeaders?: SentHeaders,
): Promise<void> {
  unreported.push(...(await responseValidator(document).problems(method, url, res, sentHeaders)));
}

export function takeRecordedProblems(): string[] {
  return unreported.splice(0);
}
