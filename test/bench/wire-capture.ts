// Reads the PostgreSQL frontend protocol (what a client sends) and records what a request cost the
// database: statements, round trips, and each statement's text and parameters for a bare replay.
// The same reader serves the TCP proxy in front of PostgreSQL and PGlite's in-process protocol calls.

/** One statement as the bare client replays it: simple (text only) or extended (text and parameters). */
export interface CapturedStatement {
  text: string;
  params: (string | null)[] | undefined;
}

/** What a bare client replays for one request: statements alone, or grouped in a transaction. */
export type ReplayUnit =
  | { transaction: false; statement: CapturedStatement }
  | { transaction: true; statements: CapturedStatement[]; rollback: boolean };

export interface RequestCost {
  statements: number;
  roundTrips: number;
  transactions: number;
  units: ReplayUnit[];
}

/** Where the statements of the request being measured go (requests are measured one at a time). */
export class CostRecorder {
  private current: RequestCost | undefined;
  private open: { statements: CapturedStatement[] } | undefined;
  /** Whether the client named its prepared statements (postgres.js `prepare: true`). */
  namedStatements = false;

  begin(): void {
    this.current = { statements: 0, roundTrips: 0, transactions: 0, units: [] };
    this.open = undefined;
  }

  end(): RequestCost {
    const cost = this.current;
    if (!cost) throw new Error('no request is being recorded');
    if (this.open)
      throw new Error(
        `a request ended inside an open transaction: ${JSON.stringify(cost)} ${JSON.stringify(this.open)}`,
      );
    this.current = undefined;
    return cost;
  }

  roundTrip(): void {
    if (this.current) this.current.roundTrips += 1;
  }

  statement(statement: CapturedStatement): void {
    const cost = this.current;
    if (!cost) return;
    cost.statements += 1;
    const word = !statement.params?.length ? /^\s*(\w+)/.exec(statement.text)?.[1]?.toLowerCase() : undefined;
    if (word === 'begin' || word === 'start') {
      cost.transactions += 1;
      this.open = { statements: [] };
    } else if ((word === 'commit' || word === 'rollback' || word === 'end') && this.open) {
      cost.units.push({ transaction: true, statements: this.open.statements, rollback: word === 'rollback' });
      this.open = undefined;
    } else if (this.open) {
      this.open.statements.push(statement);
    } else {
      cost.units.push({ transaction: false, statement });
    }
  }
}

/** Reads one client's stream of frontend messages (chunks may split or join messages). */
export class FrontendReader {
  private buffer = Buffer.alloc(0);
  private readonly parsed = new Map<string, string>();
  private boundText: string | undefined;
  private boundParams: (string | null)[] | undefined;

  constructor(
    private readonly recorder: CostRecorder,
    /** A TCP client starts with a startup message that has no type byte; PGlite's calls do not. */
    private startup: boolean,
    /** Over TCP a Sync, Flush or Query is a round trip; PGlite counts its calls instead. */
    private readonly syncIsRoundTrip: boolean,
  ) {}

  push(chunk: Uint8Array): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : Buffer.from(chunk);
    for (;;) {
      if (this.startup) {
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        if (this.buffer.length < length) return;
        const code = this.buffer.readInt32BE(4);
        // SSLRequest and GSSENCRequest are followed by another startup message.
        if (code !== 80877103 && code !== 80877104) this.startup = false;
        this.buffer = this.buffer.subarray(length);
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = this.buffer.readInt32BE(1);
      if (this.buffer.length < 1 + length) return;
      this.message(String.fromCharCode(this.buffer[0]!), this.buffer.subarray(5, 1 + length));
      this.buffer = this.buffer.subarray(1 + length);
    }
  }

  private message(type: string, body: Buffer): void {
    switch (type) {
      case 'Q':
        if (this.syncIsRoundTrip) this.recorder.roundTrip();
        this.recorder.statement({ text: cString(body, 0).value, params: undefined });
        break;
      case 'S':
      case 'H':
        if (this.syncIsRoundTrip) this.recorder.roundTrip();
        break;
      case 'P': {
        const name = cString(body, 0);
        const text = cString(body, name.next);
        if (name.value) this.recorder.namedStatements = true;
        this.parsed.set(name.value, text.value);
        break;
      }
      case 'B': {
        const portal = cString(body, 0);
        const name = cString(body, portal.next);
        this.boundText = this.parsed.get(name.value);
        this.boundParams = bindParameters(body, name.next);
        break;
      }
      case 'E':
        this.recorder.statement({ text: this.boundText ?? '', params: this.boundParams ?? [] });
        break;
    }
  }
}

function cString(body: Buffer, at: number): { value: string; next: number } {
  const end = body.indexOf(0, at);
  return { value: body.toString('utf8', at, end), next: end + 1 };
}

/** A Bind message's parameter values, as text (binary values, which the drivers here do not send, as hex). */
function bindParameters(body: Buffer, at: number): (string | null)[] {
  let offset = at;
  const formatCount = body.readInt16BE(offset);
  const formats: number[] = [];
  offset += 2;
  for (let i = 0; i < formatCount; i++, offset += 2) formats.push(body.readInt16BE(offset));
  const count = body.readInt16BE(offset);
  offset += 2;
  const values: (string | null)[] = [];
  for (let i = 0; i < count; i++) {
    const length = body.readInt32BE(offset);
    offset += 4;
    if (length < 0) {
      values.push(null);
      continue;
    }
    const binary = (formats.length === 1 ? formats[0] : formats[i]) === 1;
    values.push(body.toString(binary ? 'hex' : 'utf8', offset, offset + length));
    offset += length;
  }
  return values;
}
