// REDIS_URL in its three forms: one server (redis://, rediss://), a Sentinel-watched primary
// (redis+sentinel://h1:26379,h2:26379/<primary-name>[/<db>]) and a Redis Cluster
// (redis+cluster://h1:7000,h2:7001,h3:7002). `rediss` in any form means TLS to the data nodes.
export interface RedisNode {
  host: string;
  port: number;
}

export type RedisTarget =
  | { kind: 'single'; url: string }
  | {
      kind: 'sentinel';
      sentinels: RedisNode[];
      name: string;
      db: number;
      username?: string;
      password?: string;
      sentinelPassword?: string;
      tls: boolean;
    }
  | { kind: 'cluster'; nodes: RedisNode[]; username?: string; password?: string; tls: boolean };

const FORM = /^(rediss?)(?:\+(sentinel|cluster))?:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]+)(\/[^?#]*)?(?:\?([^#]*))?$/;

function nodes(list: string, defaultPort: number): RedisNode[] {
  return list.split(',').map((entry) => {
    const m = /^(\[[0-9a-fA-F:]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(entry.trim());
    if (!m) throw new Error(`"${entry}" is not host:port`);
    const port = m[2] ? Number(m[2]) : defaultPort;
    if (port < 1 || port > 65535) throw new Error(`port ${port} is out of range`);
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
  });
}

const decode = (v: string | undefined) => (v === undefined || v === '' ? undefined : decodeURIComponent(v));

export function parseRedisUrl(value: string): RedisTarget {
  const m = FORM.exec(value);
  if (!m) throw new Error(`expected redis://, rediss://, redis+sentinel:// or redis+cluster:// (got "${value}")`);
  const [, scheme, topology, user, pass, hosts, path = '', query = ''] = m;
  const tls = scheme === 'rediss';
  if (!topology) {
    new URL(value); // a plain URL, as ioredis reads it
    return { kind: 'single', url: value };
  }
  const params = new URLSearchParams(query);
  const auth = { ...(decode(user) && { username: decode(user) }), ...(decode(pass) && { password: decode(pass) }) };
  if (topology === 'cluster') {
    if (path !== '' && path !== '/' && path !== '/0') throw new Error('a Redis Cluster has database 0 only');
    return { kind: 'cluster', nodes: nodes(hosts!, 6379), tls, ...auth };
  }
  const [name, db = '0'] = path.replace(/^\//, '').split('/');
  if (!name) throw new Error("redis+sentinel:// needs the primary's name as its path, e.g. redis+sentinel://h1:26379,h2:26379/mymaster");
  if (!/^\d+$/.test(db)) throw new Error(`database "${db}" is not a number`);
  const sentinelPassword = params.get('sentinelPassword') ?? undefined;
  return {
    kind: 'sentinel',
    sentinels: nodes(hosts!, 26379),
    name,
    db: Number(db),
    tls,
    ...auth,
    ...(sentinelPassword && { sentinelPassword }),
  };
}
