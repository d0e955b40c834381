// The Neo4j driver encodes a Bolt message into 1,400-byte chunks and writes each to its socket
// as soon as it fills: the verdict's graph read (its query text is 5 KB) cost five socket writes,
// and on loopback each write pays for the receiver's side of TCP too (docs/benchmarks-history.md,
// run 14). This corks a channel's socket at its first write and uncorks it once the event loop's
// current round of callbacks and promise jobs is done (setImmediate), so a RUN and its PULL
// (which the driver sends from a promise job) leave in one write. The driver offers no socket hook, so
// its channel's write is wrapped; if a driver version moves it, nothing is wrapped, and
// test/graph/bolt-write-batching.test.ts fails to say so.
import { createRequire } from 'node:module';
import type net from 'node:net';

// Resolved from the driver's own location: the copy of its Bolt package the driver loads.
const fromDriver = () => createRequire(createRequire(import.meta.url).resolve('neo4j-driver'));
const MARK = Symbol.for('doorman.boltWriteBatching');

interface ChannelPrototype {
  write(this: { _conn?: net.Socket & { [MARK]?: boolean }; _pending: unknown[] | null }, buffer: unknown): void;
  [MARK]?: true;
}

// Wraps the driver's Node channel once per process; true when the wrapping is in place.
export function batchBoltWrites(): boolean {
  let proto: ChannelPrototype | undefined;
  try {
    proto = (fromDriver()('neo4j-driver-bolt-connection/lib/channel/node/node-channel.js') as { default?: { prototype: ChannelPrototype } })
      .default?.prototype;
  } catch {
    return false;
  }
  if (!proto || typeof proto.write !== 'function') return false;
  if (proto[MARK]) return true;
  const write = proto.write;
  proto.write = function batched(buffer) {
    const socket = this._conn;
    if (this._pending === null && socket && !socket[MARK] && typeof socket.cork === 'function') {
      socket[MARK] = true;
      socket.cork();
      setImmediate(() => {
        socket[MARK] = false;
        socket.uncork();
      });
    }
    write.call(this, buffer);
  };
  proto[MARK] = true;
  return true;
}
