// The connections analysts' queries run on: a few of their own, never the verdict's or
// the graph writer's. Each slot is a driver with one connection; on a plain bolt:// or neo4j://
// address it reaches Neo4j through a relay of its own on loopback, which counts the bytes Neo4j
// sends. A query that passes its deadline, or whose answer grows past the byte cap, is cut there:
// its socket is destroyed, so the connection is closed and never handed to the next query, and
// Neo4j ends the transaction when its client goes. (On a TLS address the relay would break
// certificate checks: there the slot's driver is closed and made again, and the byte cap applies
// to each row as it arrives.)
//
// Slots are made when first needed (a process that runs no analyst query opens nothing), at most
// GRAPH_QUERY_POOL of them; one tenant holds at most half of them at once, so one tenant's
// analysts cannot keep another's waiting; a query that finds no slot within its own time limit is
// answered 429. No verdict waits on any of it.
import net from 'node:net';
import neo4j, { type Driver, type Session } from 'neo4j-driver';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

export interface SlotLimits {
  timeoutMs: number;
  maxBytes: number;
}

// Why a slot's connection was cut, if it was.
export type CutReason = 'deadline' | 'bytes';

export interface SlotRun {
  session: Session;
  cut(): CutReason | undefined;
}

export interface AnalystGraph {
  run<T>(tenantId: string, limits: SlotLimits, fn: (slot: SlotRun) => Promise<T>): Promise<T>;
  stats(): { slots: number; busy: number; waiting: number; cuts: number };
  close(): Promise<void>;
}

type AnalystGraphConfig = Pick<Config, 'neo4jUri' | 'neo4jUser' | 'neo4jPassword' | 'graphQueryPool'>;

// Past the server's own timeout, how long the client waits before it cuts (Neo4j ends a timed-out
// transaction itself, and answers; the cut is for a server that does not).
const CUT_GRACE_MS = 1000;
// Bolt's encoding is not JSON's: the relay allows the row cap's bytes plus this much.
const BYTE_SLACK = (maxBytes: number) => Math.ceil(maxBytes * 0.25) + 64 * 1024;

interface Slot {
  driver: Driver;
  relay?: net.Server;
  sockets: Set<net.Socket>;
  busy: boolean;
  tenantId?: string;
  received: number;
  byteCap: number;
  reason?: CutReason;
}

export function createAnalystGraph(config: AnalystGraphConfig): AnalystGraph {
  const size = config.graphQueryPool;
  const share = Math.max(1, Math.ceil(size / 2));
  const slots: Slot[] = [];
  const waiting: { tenantId: string; take: (s: Slot) => void }[] = [];
  const auth = config.neo4jPassword ? neo4j.auth.basic(config.neo4jUser, config.neo4jPassword) : undefined;
  const target = new URL(config.neo4jUri);
  const relayed = target.protocol === 'bolt:' || target.protocol === 'neo4j:';
  let cuts = 0;
  let creating = 0;
  let closed = false;

  const driverFor = (uri: string) =>
    neo4j.driver(uri, auth, {
      maxConnectionPoolSize: 1,
      connectionAcquisitionTimeout: 5000,
      connectionTimeout: 3000,
      maxTransactionRetryTime: 0,
      disableLosslessIntegers: true,
    });

  async function makeSlot(): Promise<Slot> {
    const slot: Slot = { driver: undefined as unknown as Driver, sockets: new Set(), busy: false, received: 0, byteCap: Infinity };
    if (!relayed) {
      slot.driver = driverFor(config.neo4jUri);
      return slot;
    }
    const relay = net.createServer((client) => {
      const upstream = net.connect({ host: target.hostname, port: Number(target.port || 7687) });
      slot.sockets.add(client).add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
        slot.sockets.delete(client);
        slot.sockets.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      client.pipe(upstream);
      upstream.on('data', (chunk: Buffer) => {
        slot.received += chunk.length;
        if (slot.received > slot.byteCap) {
          slot.reason ??= 'bytes';
          cuts++;
          end();
          return;
        }
        if (!client.write(chunk)) {
          upstream.pause();
          client.once('drain', () => upstream.resume());
        }
      });
    });
    await new Promise<void>((resolve, reject) => relay.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
    slot.relay = relay;
    slot.driver = driverFor(`bolt://127.0.0.1:${(relay.address() as net.AddressInfo).port}`);
    return slot;
  }

  const busyOf = (tenantId: string) => slots.filter((s) => s.busy && s.tenantId === tenantId).length;

  async function acquire(tenantId: string, waitMs: number): Promise<Slot> {
    if (closed) throw AppError.unavailable('The service is stopping.');
    if (busyOf(tenantId) < share) {
      const free = slots.find((s) => !s.busy);
      if (free) return claim(free, tenantId);
      if (slots.length + creating < size) {
        creating++;
        try {
          const slot = await makeSlot();
          slots.push(slot);
          return claim(slot, tenantId);
        } finally {
          creating--;
        }
      }
    }
    return new Promise<Slot>((resolve, reject) => {
      const waiter = {
        tenantId,
        take: (s: Slot) => {
          clearTimeout(timer);
          resolve(claim(s, tenantId));
        },
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(waiter), 1);
        const seconds = Math.max(1, Math.ceil(waitMs / 1000));
        reject(
          new AppError(
            'rate_limited',
            `Every connection for analysts' queries is busy (${size} in this process, at most ${share} for one tenant); retry after ${seconds} s.`,
            { retry_after_seconds: seconds },
          ),
        );
      }, waitMs);
      waiting.push(waiter);
    });
  }

  function claim(slot: Slot, tenantId: string): Slot {
    slot.busy = true;
    slot.tenantId = tenantId;
    slot.received = 0;
    slot.byteCap = Infinity;
    slot.reason = undefined;
    return slot;
  }

  function release(slot: Slot): void {
    slot.busy = false;
    slot.tenantId = undefined;
    const next = waiting.findIndex((w) => busyOf(w.tenantId) < share);
    if (next >= 0) waiting.splice(next, 1)[0]!.take(slot);
  }

  async function cutSlot(slot: Slot, reason: CutReason): Promise<void> {
    slot.reason ??= reason;
    cuts++;
    if (slot.relay) {
      for (const s of slot.sockets) s.destroy();
      return;
    }
    const old = slot.driver;
    slot.driver = driverFor(config.neo4jUri);
    await old.close().catch(() => undefined);
  }

  return {
    async run(tenantId, limits, fn) {
      const slot = await acquire(tenantId, limits.timeoutMs);
      slot.byteCap = limits.maxBytes + BYTE_SLACK(limits.maxBytes);
      const session = slot.driver.session({ defaultAccessMode: neo4j.session.READ });
      const timer = setTimeout(() => void cutSlot(slot, 'deadline'), limits.timeoutMs + CUT_GRACE_MS);
      try {
        return await fn({ session, cut: () => slot.reason });
      } finally {
        clearTimeout(timer);
        await session.close().catch(() => undefined);
        release(slot);
      }
    },
    stats: () => ({ slots: slots.length, busy: slots.filter((s) => s.busy).length, waiting: waiting.length, cuts }),
    async close() {
      closed = true;
      await Promise.allSettled(
        slots.map(async (s) => {
          for (const sock of s.sockets) sock.destroy();
          await s.driver.close();
          await new Promise<void>((resolve) => (s.relay ? s.relay.close(() => resolve()) : resolve()));
        }),
      );
    },
  };
}
