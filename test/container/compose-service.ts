// One service of a compose file as `docker compose` would run it: its environment with the variables
// interpolated (${VAR}, ${VAR:-default}, ${VAR:?message}), read_only, tmpfs and stop_grace_period. Debian's
// podman-compose (1.0.3) has no `config` command, so the test reads the file with these rules instead.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

interface ComposeFile {
  services: Record<
    string,
    {
      environment?: Record<string, string>;
      read_only?: boolean;
      tmpfs?: string[];
      stop_grace_period?: string;
      depends_on?: Record<string, { condition: string }>;
      ports?: string[];
    }
  >;
}

export interface ComposeService {
  environment: Record<string, string>;
  readOnly: boolean;
  tmpfs: string[];
  stopSeconds: number;
  dependsOn: Record<string, { condition: string }>;
  ports: string[];
}

function interpolate(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, arg?: string) => {
    const value = vars[name];
    if (value) return value;
    if (op === '?') throw new Error(`compose: ${arg || `${name} is required`}`);
    return op === '-' ? (arg ?? '') : '';
  });
}

export function composeService(file: string, name: string, vars: Record<string, string>): ComposeService {
  const compose = parse(interpolate(readFileSync(file, 'utf8'), vars)) as ComposeFile;
  const service = compose.services[name];
  if (!service) throw new Error(`compose: no service ${name}`);
  const grace = /^(\d+)s$/.exec(service.stop_grace_period ?? '10s');
  if (!grace) throw new Error(`compose: stop_grace_period ${service.stop_grace_period} is not in seconds`);
  return {
    environment: Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, String(v)])),
    readOnly: service.read_only === true,
    tmpfs: service.tmpfs ?? [],
    stopSeconds: Number(grace[1]),
    dependsOn: service.depends_on ?? {},
    ports: service.ports ?? [],
  };
}
