// A TCP proxy on loopback in front of a real service (Postgres, say) that a test cuts and
// restores: cut() destroys every open connection and refuses new ones, as a network partition or
// a stopped server would; stall() keeps every connection open but carries nothing more either
// way, as a half-open connection behind a dead router does; forget() does that and also keeps
// from each end that the other has closed, as a NAT that dropped the connection does (the server
// learns nothing until its own timeouts); restore() lets connections through again. accepted
// counts the connections made to it, refused ones included.
import net from 'node:net';

export interface TcpFaultProxy {
  port: number;
  readonly accepted: number;
  cut(): void;
  stall(): void;
  forget(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpFaultProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpFaultProxy> {
  let isCut = false;
  let isStalled = false;
  let isForgotten = false;
  let accepted = 0;
  const sockets = new Set<net.Socket>();
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
        if (!isForgotten) return end();
        socket.destroy();
        sockets.delete(socket);
      };
      socket.on('error', closed);
      socket.on('close', closed);
    }
    // Forwarded by hand, so a stall can swallow bytes without closing anything.
    client.on('data', (chunk: Buffer) => {
      if (!isStalled) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!isStalled) client.write(chunk);
    });
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
    restore() {
      isCut = false;
      isStalled = false;
      isForgotten = false;
    },
    close() {
      isCut = true;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
