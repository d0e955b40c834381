// The driver's channel is wrapped so a Bolt message leaves in one socket write
// (src/graph/bolt-write-batching.ts). If a driver version moves the channel, this fails, rather
// than the verdict quietly paying a write per 1,400-byte chunk again. Counted on a real
// connection to the test Neo4j: the write calls on sockets to Bolt's port during one long query.
import { expect } from 'chai';
import net from 'node:net';
import { batchBoltWrites } from '../../src/graph/bolt-write-batching.js';
import { testDeps } from '../support/test-deps.js';

describe('Bolt writes', () => {
  it('are wrapped in this driver version, and a 6 KB query leaves in one socket write', async () => {
    expect(batchBoltWrites()).to.equal(true);
    const deps = testDeps();
    // A query text well past four chunks, answered as usual.
    const padding = 'x'.repeat(6_000);
    const session = deps.graph.session();
    const boltPort = Number(new URL(deps.config.neo4jUri).port || 7687);
    // Node's socket internal that ends in one system call (a single buffer, or several with
    // writev: _writev calls it too).
    const socket = net.Socket.prototype as unknown as { _writeGeneric: (...a: unknown[]) => unknown };
    const writes: string[] = [];
    const original = socket._writeGeneric;
    try {
      // An auto-commit RUN and its PULL, as the verdict's read sends them.
      await session.run('RETURN $n AS n', { n: 1 });
      socket._writeGeneric = function (this: net.Socket, ...args: unknown[]) {
        if (this.remotePort === boltPort) writes.push(args[0] ? 'writev' : 'write');
        return original.apply(this, args);
      };
      const result = await session.run(`RETURN size('${padding}') AS n`, {});
      expect(result.records[0]!.get('n')).to.equal(6_000);
    } finally {
      socket._writeGeneric = original;
      await session.close();
    }
    // One write of the corked query (its five chunks and the PULL); nothing else wrote meanwhile.
    expect(writes).to.have.length(1);
  });
});
