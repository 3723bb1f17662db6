// The check-in load of BENCH_ONLY=checkins (checkins.ts), in a process of its own so that its CPU is
// counted apart and the install steps timed meanwhile have an event loop to themselves. Agents as a load
// balancer hands them to the service: CHECKIN_LOAD_CONNECTIONS keep-alive connections spread over the
// instances' ports, one request in flight on each, each request a check-in of the next agent (a stride
// through the filled servers, so every one is that server's first of the hour, from an address of its
// own in X-Forwarded-For). Plain sockets, each request written as one string and each answer read only
// as far as its status and length: the generator's CPU per check-in is a few tens of µs, where
// node:http's client would cost about as much as the service. Prints one JSON line when done.
import net from 'node:net';
import { benchAgentToken } from '../support/fleet-rows.js';

const ports = process.env.CHECKIN_LOAD_PORTS!.split(',').map(Number);
const connections = Number(process.env.CHECKIN_LOAD_CONNECTIONS);
const seconds = Number(process.env.CHECKIN_LOAD_SECONDS);
const servers = Number(process.env.CHECKIN_LOAD_SERVERS);
/** Where this run starts in the stride, so a second run checks in servers the first did not. */
const offset = Number(process.env.CHECKIN_LOAD_OFFSET ?? 0);
const STRIDE = 7919;

const body = JSON.stringify({
  agent_version: '2026.11.20.1',
  uptime_seconds: 86_400,
  services: [
    { name: 'slowdns-server.service', state: 'active' },
    { name: 'sshd.service', state: 'active' },
  ],
});

let next = offset;
function request(): string {
  const n = ((next++ * STRIDE) % servers) + 1;
  return (
    'POST /checkin HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n' +
    `Authorization: Bearer ${benchAgentToken(n)}\r\nX-Forwarded-For: 10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}\r\n` +
    `Content-Length: ${body.length}\r\n\r\n${body}`
  );
}

const byStatus: Record<string, number> = {};
const latencies: number[] = [];
let answered = 0;

/** One connection: a request, its whole answer, the next, until the deadline. */
function drive(port: number, until: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, noDelay: true });
    let buffered: Buffer = Buffer.alloc(0);
    let sentAt = 0;
    const send = () => {
      if (performance.now() >= until) {
        socket.end();
        return resolve();
      }
      sentAt = performance.now();
      socket.write(request());
    };
    socket.on('connect', send);
    socket.on('error', reject);
    socket.on('close', () => resolve());
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buffered.toString('latin1', 0, end);
        const length = /\r\ncontent-length: *(\d+)/i.exec(head);
        let total: number;
        if (length) total = end + 4 + Number(length[1]);
        else {
          // Chunked: the answer ends with the last, empty chunk.
          const last = buffered.indexOf('\r\n0\r\n\r\n', end);
          if (last === -1) return;
          total = last + 7;
        }
        if (buffered.length < total) return;
        const status = head.slice(9, 12);
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        answered += 1;
        latencies.push(performance.now() - sentAt);
        buffered = buffered.subarray(total);
        send();
      }
    });
  });
}

const started = performance.now();
const cpuBefore = process.cpuUsage();
await Promise.all(
  Array.from({ length: connections }, (_, i) => drive(ports[i % ports.length]!, started + seconds * 1000)),
);
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
console.log(
  JSON.stringify({
    answered,
    byStatus,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    next,
  }),
);
