import type { OpenApiDocument } from '../../src/openapi-document.js';

type Operation = { responses?: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }> };

/**
 * Every error a test provokes on a documented route must be documented on that route, under that
 * status: the contract's promise to integrators, checked on every answer of every test.
 */
export async function assertErrorDocumented(document: OpenApiDocument, method: string, url: string, res: Response): Promise<void> {
  if (res.status < 400) return;
  const path = new URL(url, 'http://test.invalid').pathname;
  const item = (document.paths as Record<string, Record<string, Operation> | undefined>)[path];
  const operation = item?.[method === 'HEAD' ? 'get' : method.toLowerCase()];
  // Unknown routes and methods (404 not_found, 405 method_not_allowed) have no operation to document them.
  if (!operation) return;
  const body = (await res.clone().json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
  const code = body?.error?.code;
  const documented = operation.responses?.[String(res.status)]?.content?.['application/json']?.examples ?? {};
  if (!code || !(code in documented)) {
    throw new Error(`${method} ${path} answered ${res.status} ${code ?? '(no envelope)'}, which its OpenAPI responses do not document`);
  }
}
