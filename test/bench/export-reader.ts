// The client of the export benches (export-memory.ts, scale.ts): an NDJSON export read over HTTP as fast
// as the socket gives it, its lines counted with Buffer.indexOf, as curl piped into wc would (scale.ts
// looped over every byte in JavaScript, export-memory.ts read fetch's web stream: one client now).
import http from 'node:http';

export interface ExportRead {
  lines: number;
  bytes: number;
  seconds: number;
}

/** GETs `url` with `headers` and reads the whole answer (it must be a 200), counting its lines. */
export function readExport(url: string, headers: Record<string, string>): Promise<ExportRead> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`the export answered ${res.statusCode}`));
        return;
      }
      let lines = 0;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
      });
      res.on('end', () => resolve({ lines, bytes, seconds: (performance.now() - started) / 1000 }));
      res.on('error', reject);
    });
    request.on('error', reject);
  });
}
