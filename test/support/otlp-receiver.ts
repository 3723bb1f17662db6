import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';

/** One span as a collector receives it, whichever the protocol. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's StatusCode: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the generic endpoint (`/v1/traces` is appended by the service). */
  endpoint: string;
  /** Every request body as received (for protobuf, the raw bytes), by path. */
  bodies: { path: string; contentType: string; body: Buffer }[];
  spans: ReceivedSpan[];
  /** Resolves once a span matching `test` has arrived. */
  waitFor(test: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

/**
 * A local OTLP/HTTP trace collector: accepts `POST /v1/traces` in `application/x-protobuf` or
 * `application/json`, decodes its spans, and answers 200 as a collector does.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: OtlpReceiver['bodies'] = [];
  const spans: ReceivedSpan[] = [];
  const waiters: { test: (span: ReceivedSpan) => boolean; resolve: (span: ReceivedSpan) => void }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = req.headers['content-type'] ?? '';
      bodies.push({ path: req.url ?? '', contentType, body });
      const received = contentType.includes('json')
        ? spansFromJson(JSON.parse(body.toString('utf8')))
        : spansFromProtobuf(body);
      spans.push(...received);
      for (const span of received) {
        for (const waiter of waiters.filter((w) => w.test(span))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(span);
        }
      }
      // An empty ExportTraceServiceResponse: no bytes in protobuf, `{}` in JSON.
      res.writeHead(200, {
        'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf',
      });
      res.end(contentType.includes('json') ? '{}' : undefined);
    });
  });
  const port = await listen(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    spans,
    waitFor: (test) =>
      new Promise((resolve) => {
        const seen = spans.find(test);
        if (seen) resolve(seen);
        else waiters.push({ test, resolve });
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A collector that accepts connections and never answers (a hung process, a black-holing proxy). */
export async function startHungCollector(): Promise<{
  endpoint: string;
  connections(): number;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An endpoint where nothing listens: connections are refused. */
export async function refusedEndpoint(): Promise<string> {
  const server = createTcpServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

// --- OTLP/JSON (opentelemetry-proto's JSON mapping: ids in hex, enums as numbers) ---

type JsonAnyValue = { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number };
type JsonKeyValue = { key: string; value: JsonAnyValue };

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ??
        value.boolValue ??
        (value.intValue !== undefined ? Number(value.intValue) : value.doubleValue),
    ]),
  );
}

function spansFromJson(request: {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: { spans?: Record<string, unknown>[] }[];
  }[];
}): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = jsonAttributes(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: String(span.traceId),
        spanId: String(span.spanId),
        parentSpanId: String(span.parentSpanId ?? ''),
        name: String(span.name),
        kind: Number(span.kind),
        attributes: jsonAttributes(span.attributes as JsonKeyValue[]),
        statusCode: Number((span.status as { code?: number } | undefined)?.code ?? 0),
        resource,
      })),
    );
  });
}

// --- OTLP/protobuf: a small reader of the protobuf wire format, for the fields read here ---

type Field = { number: number; wire: number; value: bigint | Buffer };

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buffer[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return result;
    }
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const wire = key & 7;
    const number = key >> 3;
    if (wire === 0) out.push({ number, wire, value: varint() });
    else if (wire === 1) {
      out.push({ number, wire, value: buffer.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ number, wire, value: buffer.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) {
      out.push({ number, wire, value: buffer.subarray(at, at + 4) });
      at += 4;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  return out;
}

const messages = (buffer: Buffer, number: number) =>
  fields(buffer)
    .filter((f) => f.number === number)
    .map((f) => f.value as Buffer);
const bytesOf = (buffer: Buffer, number: number) =>
  fields(buffer).find((f) => f.number === number)?.value as Buffer | undefined;
const numberOf = (buffer: Buffer, number: number) =>
  Number((fields(buffer).find((f) => f.number === number)?.value as bigint | undefined) ?? 0n);

/** AnyValue: 1 string, 2 bool, 3 int64, 4 double. */
function anyValue(buffer: Buffer): unknown {
  const [field] = fields(buffer);
  if (!field) return undefined;
  if (field.number === 1) return (field.value as Buffer).toString('utf8');
  if (field.number === 2) return field.value === 1n;
  if (field.number === 3) return Number(BigInt.asIntN(64, field.value as bigint));
  if (field.number === 4) return (field.value as Buffer).readDoubleLE(0);
  return undefined;
}

/** KeyValue: 1 key, 2 value. */
const protobufAttributes = (list: Buffer[]) =>
  Object.fromEntries(list.map((kv) => [bytesOf(kv, 1)!.toString('utf8'), anyValue(bytesOf(kv, 2) ?? Buffer.alloc(0))]));

/**
 * ExportTraceServiceRequest: 1 ResourceSpans (1 Resource (1 attributes), 2 ScopeSpans (2 Span)).
 * Span: 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind, 9 attributes, 15 status (3 code).
 */
function spansFromProtobuf(body: Buffer): ReceivedSpan[] {
  return messages(body, 1).flatMap((resourceSpans) => {
    const resourceMessage = bytesOf(resourceSpans, 1);
    const resource = resourceMessage ? protobufAttributes(messages(resourceMessage, 1)) : {};
    return messages(resourceSpans, 2).flatMap((scopeSpans) =>
      messages(scopeSpans, 2).map((span) => {
        const status = bytesOf(span, 15);
        return {
          traceId: (bytesOf(span, 1) ?? Buffer.alloc(0)).toString('hex'),
          spanId: (bytesOf(span, 2) ?? Buffer.alloc(0)).toString('hex'),
          parentSpanId: (bytesOf(span, 4) ?? Buffer.alloc(0)).toString('hex'),
          name: (bytesOf(span, 5) ?? Buffer.alloc(0)).toString('utf8'),
          kind: numberOf(span, 6),
          attributes: protobufAttributes(messages(span, 9)),
          statusCode: status ? numberOf(status, 3) : 0,
          resource,
        };
      }),
    );
  });
}
