// node-postgres writes each message of a query to its socket on its own (Bind, Describe,
// Execute, Sync: four writes, four system calls, for one prepared statement), and on loopback
// the sender pays for the receiver's side of TCP too: a quarter of a verdict server's CPU went to
// socket writes (docs/benchmarks-history.md, run 14). This socket corks itself at its first write
// and uncorks once the event loop's current round of callbacks and promise jobs is done
// (setImmediate), so what is written meanwhile leaves in one write.
// Given to pg as its `stream` factory (src/db/create-pool.ts); TLS, when used, wraps it unchanged.
import net from 'node:net';

export class CorkingSocket extends net.Socket {
  private corked = false;

  private readonly release = () => {
    this.corked = false;
    this.uncork();
  };

  constructor() {
    super();
    // An own-property wrapper of the inherited write: every overload passes through unchanged.
    const write = net.Socket.prototype.write;
    this.write = ((...args: unknown[]) => {
      if (!this.corked) {
        this.corked = true;
        this.cork();
        setImmediate(this.release);
      }
      return (write as (...a: unknown[]) => boolean).apply(this, args);
    }) as net.Socket['write'];
  }
}
