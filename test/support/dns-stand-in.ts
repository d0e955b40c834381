// A real DNS server on 127.0.0.1 (UDP, and TCP on the same port for truncated answers) that answers
// from a small in-memory zone, so tests exercise the real resolver without reaching the internet.
// It plays the root too: a top-level domain (a name of one label) it does not list has an SOA, so
// the MX checker trusts its negative answers; list one to take that away (`com: { fail: 'NXDOMAIN' }`
// makes a resolver that denies every name, as one cut off from the internet may).
import type { Socket } from 'node:net';
import { createTCPServer, createUDPServer, Packet, type DnsHandler, type Resource, type TCPServer, type UDPServer } from 'dns2';

// A response code instead of an answer, or 'silent': the query is received and never answered.
export type StandInFailure = 'SERVFAIL' | 'REFUSED' | 'NXDOMAIN' | 'silent';
export type StandInQueryType = 'MX' | 'A' | 'AAAA' | 'SOA';

export type StandInRecords = {
  mx?: Array<{ exchange: string; priority: number }>;
  a?: string[];
  aaaa?: string[];
  // Hold every answer for this name this long, e.g. past the client's timeout.
  delayMs?: number;
  // Fail the queries for this name instead of answering: every query, or those of the types named
  // (`{ A: 'SERVFAIL' }`: MX and AAAA answer from the records, A fails).
  fail?: StandInFailure | Partial<Record<StandInQueryType, StandInFailure>>;
};

// Names missing from the zone get NXDOMAIN (but unlisted TLDs, above); a name present without
// records of the asked type, NODATA.
export type StandInZone = Record<string, StandInRecords>;

export type DnsQuery = { name: string; type: string; transport: 'udp' | 'tcp' };

export type DnsStandIn = {
  // '127.0.0.1:<port>', the form DNS_SERVERS and Resolver#setServers take.
  server: string;
  queries: DnsQuery[];
  queryCount(name: string, type?: string): number;
  close(): Promise<void>;
};

// RFC 1035 §4.1.1 / RFC 6895 response codes.
const RCODE = { NXDOMAIN: 3, SERVFAIL: 2, REFUSED: 5 } as const;
const TYPE_NAMES = new Map<number, string>(Object.entries(Packet.TYPE).map(([name, code]) => [code, name]));
const TTL_SECONDS = 60;
// A TLD's SOA, as the root's servers answer it (made-up values: nothing reads them).
const ROOT_SOA = {
  primary: 'a.nic.invalid',
  admin: 'hostmaster.nic.invalid',
  serial: 1,
  refresh: 1800,
  retry: 900,
  expiration: 604800,
  minimum: 86400,
};

const isTopLevel = (name: string) => name !== '' && !name.includes('.');

export async function startDnsStandIn(zone: StandInZone): Promise<DnsStandIn> {
  const queries: DnsQuery[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const handlerFor =
    (transport: DnsQuery['transport']): DnsHandler =>
    (request, send) => {
      const question = request.questions[0];
      const name = (question?.name ?? '').toLowerCase();
      const type = TYPE_NAMES.get(question?.type ?? 0) ?? String(question?.type);
      queries.push({ name, type, transport });
      const records = zone[name];
      const response = answer(request, name, type, records);
      if (!response) return;
      if (!records?.delayMs) return void send(response).catch(() => undefined);
      const timer = setTimeout(() => {
        timers.delete(timer);
        send(response).catch(() => undefined);
      }, records.delayMs);
      timers.add(timer);
    };

  const { udp, tcp } = await listenOnOnePort(handlerFor('udp'), handlerFor('tcp'));
  // A resolver may keep its TCP connection open; close() ends them rather than wait for it.
  const sockets = new Set<Socket>();
  tcp.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const port = udp.address().port;
  return {
    server: `127.0.0.1:${port}`,
    queries,
    queryCount: (name, type) => queries.filter((q) => q.name === name && (!type || q.type === type)).length,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}

// The response to one query; undefined for one never answered.
function answer(request: Packet, name: string, type: string, records: StandInRecords | undefined): Packet | undefined {
  const response = Packet.createResponseFromRequest(request);
  const failure = typeof records?.fail === 'string' ? records.fail : records?.fail?.[type as StandInQueryType];
  if (failure === 'silent') return undefined;
  if (failure) {
    response.header.rcode = RCODE[failure];
    return response;
  }
  const base = { name, class: Packet.CLASS.IN, ttl: TTL_SECONDS };
  if (!records && isTopLevel(name)) {
    if (type === 'SOA') response.answers.push({ ...base, type: Packet.TYPE.SOA, ...ROOT_SOA } as Resource);
    return response;
  }
  if (!records) {
    response.header.rcode = RCODE.NXDOMAIN;
    return response;
  }
  if (type === 'MX') {
    for (const mx of records.mx ?? []) response.answers.push({ ...base, type: Packet.TYPE.MX, ...mx } as Resource);
  } else if (type === 'A') {
    for (const address of records.a ?? []) response.answers.push({ ...base, type: Packet.TYPE.A, address } as Resource);
  } else if (type === 'AAAA') {
    for (const address of records.aaaa ?? []) response.answers.push({ ...base, type: Packet.TYPE.AAAA, address } as Resource);
  }
  return response;
}

// Resolvers fall back to TCP on the UDP port they were given, so both must share one random port.
async function listenOnOnePort(onUdp: DnsHandler, onTcp: DnsHandler): Promise<{ udp: UDPServer; tcp: TCPServer }> {
  for (let attempt = 0; ; attempt++) {
    const udp = createUDPServer({ type: 'udp4' });
    udp.on('request', onUdp);
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, '127.0.0.1', () => resolve());
    });
    const tcp = createTCPServer(onTcp);
    const bound = await new Promise<boolean>((resolve, reject) => {
      tcp.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error)));
      tcp.listen(udp.address().port, '127.0.0.1', () => resolve(true));
    });
    if (bound) return { udp, tcp };
    udp.close();
    if (attempt >= 10) throw new Error('no port free for both UDP and TCP');
  }
}
