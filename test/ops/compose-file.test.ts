import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { roleSettings } from '../../src/roles/settings.js';
import { envName, loadConfig, type SettingKey, settings } from '../../src/settings.js';

// Issue 31 §2: deploy/docker-compose.yml kept honest without podman or Docker (the run itself is
// `npm run image:compose`, minutes long): its roles, nginx's upstream, the settings it names, the
// shared results volume, the S3 server the workers deliver to, and the script that runs it.
const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

// biome-ignore lint/suspicious/noExplicitAny: the compose file is plain parsed YAML
type Doc = Record<string, any>;
/** The compose file as Compose reads it: YAML 1.1 merge keys (`<<: *node`) resolved. */
function load(text: string): Doc {
  const doc = parseDocument(text, { merge: true });
  if (doc.errors.length > 0) throw new Error(`deploy/docker-compose.yml: ${doc.errors[0]!.message}`);
  return doc.toJS() as Doc;
}
const compose = load(read('deploy/docker-compose.yml'));
const services = compose.services as Record<string, Doc>;
/** Services that run the Cardshot image (built from deploy/Dockerfile). */
const nodes = Object.entries(services).filter(([, s]) => s.build?.dockerfile === 'deploy/Dockerfile');
const roleOf = (s: Doc) => s.environment?.CARDSHOT_ROLE ?? roleSettings.role.default;
const byRole = (role: string) =>
  nodes
    .filter(([, s]) => roleOf(s) === role)
    .map(([name]) => name)
    .sort();

/** `${VAR:-default}` → default, `${VAR:?message}` / `${VAR}` → a stand-in, as Compose fills them in. */
function interpolate(value: unknown): string {
  return String(value).replace(/\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op, rest) => {
    if (op === '-') return rest;
    return name === 'CARDSHOT_SECRET' ? Buffer.alloc(32, 7).toString('base64') : 'stand-in';
  });
}

describe('deploy/docker-compose.yml', () => {
  it('has two api nodes and two workers, and no node of the default role', () => {
    expect(byRole('api')).toEqual(['api1', 'api2']);
    expect(byRole('worker')).toEqual(['worker1', 'worker2']);
    expect(nodes).toHaveLength(4);
    for (const [, s] of nodes) expect(roleSettings.role.values).toContain(roleOf(s));
    expect(Object.keys(services).sort()).toEqual(
      ['api1', 'api2', 'nginx', 'postgres', 'redis', 's3', 'worker1', 'worker2'].sort(),
    );
  });

  it("nginx's upstream lists exactly the api nodes, on the port the image listens on", () => {
    const conf = read('deploy/nginx.conf');
    const upstream = /upstream cardshot \{([^}]*)\}/.exec(conf)?.[1] ?? '';
    const servers = [...upstream.matchAll(/^\s*server ([a-z0-9-]+):(\d+)\b/gm)];
    expect(servers.map((m) => m[1]).sort()).toEqual(byRole('api'));
    const port = /^\s*PORT=(\d+)/m.exec(read('deploy/Dockerfile'))?.[1];
    for (const m of servers) expect(m[2]).toBe(port);
    // nginx starts after the nodes it sends to, and only those.
    expect(Object.keys(services.nginx!.depends_on).sort()).toEqual(byRole('api'));
  });

  it("every node's variables are Cardshot settings, and they load with the node's role", () => {
    const known = new Set(Object.keys(settings).map((k) => envName(k as SettingKey)));
    for (const [name, s] of nodes) {
      const env = Object.fromEntries(
        Object.entries(s.environment as Record<string, unknown>).map(([k, v]) => [k, interpolate(v)]),
      );
      for (const variable of Object.keys(env)) expect(known, `${name}: ${variable}`).toContain(variable);
      const config = loadConfig({}, env);
      expect(config.role).toBe(roleOf(s));
      expect(config.databaseUrl).toMatch(/^postgres:\/\/cardshot:[^@]+@postgres:5432\/cardshot$/);
      expect(config.redisUrl).toBe('redis://redis:6379/0');
      // Behind nginx only the api nodes believe X-Forwarded-For.
      expect(config.trustProxy !== 'false').toBe(roleOf(s) === 'api');
    }
  });

  it('every node mounts the one job-results volume at /data/jobs, and a /data of its own', () => {
    const own = new Set<string>();
    for (const [name, s] of nodes) {
      const volumes = s.volumes as string[];
      expect(volumes, name).toContain('job-results:/data/jobs');
      const data = volumes.filter((v) => v.endsWith(':/data'));
      expect(data, name).toHaveLength(1);
      own.add(data[0]!);
    }
    expect(own.size).toBe(nodes.length);
    // Every named volume a service mounts is declared.
    const declared = Object.keys(compose.volumes);
    for (const [name, s] of Object.entries(services)) {
      for (const v of (s.volumes ?? []) as string[]) {
        const source = v.split(':')[0]!;
        if (!source.startsWith('.') && !source.startsWith('/'))
          expect(declared, `${name}: ${v}`).toContain(source);
      }
    }
  });

  it('the workers deliver to the S3 server, which the URL guard is told to let through', () => {
    const s3 = services.s3!;
    expect(s3.build.dockerfile).toBe('s3.Dockerfile');
    const dockerfile = read('deploy/s3.Dockerfile');
    const port = /S3_PORT=(\d+)/.exec(dockerfile)?.[1];
    expect(port).toBeDefined();
    for (const [name, s] of nodes) {
      const config = loadConfig(
        {},
        Object.fromEntries(Object.entries(s.environment).map(([k, v]) => [k, interpolate(v)])),
      );
      expect(config.storageAllowPrivateHosts, name).toContain(`s3:${port}`);
    }
    for (const name of byRole('worker'))
      expect(services[name]!.depends_on.s3.condition).toBe('service_healthy');
    expect(s3.environment.S3_BUCKETS.split(',')).toContain('cardshot');
  });

  it('every service it depends on exists, and every build names a file that exists', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const dep of Object.keys(s.depends_on ?? {}))
        expect(Object.keys(services), `${name} → ${dep}`).toContain(dep);
      if (s.build) expect(() => read(path.join('deploy', s.build.context, s.build.dockerfile))).not.toThrow();
    }
  });

  it('npm run image:compose runs the same services, roles and settings', () => {
    const script = read('scripts/image-compose.sh');
    const listed = /^COMPOSE_SERVICES=\(([^)]*)\)/m.exec(script)?.[1]?.split(/\s+/).filter(Boolean);
    expect(listed?.sort()).toEqual(Object.keys(services).sort());
    for (const [name] of nodes) expect(script).toContain(`compose_node ${name} "$`);
    for (const [name, s] of nodes)
      expect(script).toMatch(new RegExp(`compose_node ${name} \\S+ ${roleOf(s)} `));
    // Every variable it gives a node is a setting too.
    const known = new Set(Object.keys(settings).map((k) => envName(k as SettingKey)));
    const given = [...script.matchAll(/-e ([A-Z_]+)=/g)].map((m) => m[1]!);
    const nodeVars = given.filter(
      (v) => v.startsWith('CARDSHOT_') || ['DATABASE_URL', 'REDIS_URL', 'HOST', 'PORT'].includes(v),
    );
    expect(nodeVars.length).toBeGreaterThan(8);
    for (const v of nodeVars) expect(known, v).toContain(v);
  });
});
