// A TCP proxy on loopback in front of a real service (Postgres, say) that a test cuts and
// restores: cut() destroys every open connection and refuses new ones, as a network partition or
// a stopped server would; stall() keeps every connection open but carries nothing more either
// way, as a half-open connection behind a dead router does; forget() does that and also keeps
// from each end that the other has closed, as a NAT that dropped the connection does (the server
// learns nothing until its own timeouts); restore() lets connections through again. accepted
// counts the connections made to it, refused ones included. delay(ms) holds every chunk that long
// each way (in order), as a slow link does; delay(0) ends it. blackhole() is forget() for the
// connections open now only, for good (restore() does not bring them back), while new ones pass:
// a connection lost silently, as a NAT or a firewall that dropped it does.
import net from 'node:net';

export interface TcpFaultProxy {
  port: number;
  readonly accepted: number;
  cut(): void;
  stall(): void;
  forget(): void;
  delay(ms: number): void;
  blackhole(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpFaultProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpFaultProxy> {
  let isCut = false;
  let isStalled = false;
  let isForgotten = false;
  let delayMs = 0;
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  // The sockets of connections blackholed: nothing more either way, no close told.
  const holed = new WeakSet<net.Socket>();
  const server = net.createServer((client) => {
    accepted += 1;
    if (isCut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      // Forgotten: the closing end goes, the other is never told (close() and cut() end it).
      const closed = () => {
        if (!isForgotten && !holed.has(socket)) return end();
        socket.destroy();
        sockets.delete(socket);
      };
      socket.on('error', closed);
      socket.on('close', closed);
    }
    // Forwarded by hand, so a stall can swallow bytes without closing anything, and a delay can
    // hold them: each direction's chunks keep their order (a chunk is never due before the one
    // before it, whatever the delay was when each arrived).
    const forward = (to: net.Socket) => {
      const held: { chunk: Buffer; due: number }[] = [];
      let timer: NodeJS.Timeout | undefined;
      const pump = () => {
        timer = undefined;
        while (held.length > 0 && held[0]!.due <= Date.now()) {
          const { chunk } = held.shift()!;
          if (!to.destroyed) to.write(chunk);
        }
        if (held.length > 0) timer = setTimeout(pump, held[0]!.due - Date.now());
      };
      return (chunk: Buffer) => {
        if (isStalled || holed.has(to)) return;
        held.push({ chunk, due: Math.max(Date.now() + delayMs, held.at(-1)?.due ?? 0) });
        if (!timer) pump();
      };
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get accepted() {
      return accepted;
    },
    cut() {
      isCut = true;
      for (const socket of sockets) socket.destroy();
    },
    stall() {
      isStalled = true;
    },
    forget() {
      isStalled = true;
      isForgotten = true;
    },
    delay(ms) {
      delayMs = Math.max(0, ms);
    },
    blackhole() {
      for (const socket of sockets) holed.add(socket);
    },
    restore() {
      isCut = false;
      isStalled = false;
      isForgotten = false;
      delayMs = 0;
    },
    close() {
      isCut = true;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
