// One sample of a process for the soak, read from /proc (Linux): resident memory, open file
// descriptors, and its established TCP connections grouped by the far end's port (5432, 6379,
// 7687 for the stores; clients of its own listening port show as "inbound").
import fs from 'node:fs';

export interface ProcessSample {
  at: number;
  rssMb: number;
  fds: number;
  connections: Record<string, number>;
}

const ESTABLISHED = '01';

// inode -> [local port, remote port] of every established TCP socket on the machine.
function tcpSockets(): Map<string, [number, number]> {
  const sockets = new Map<string, [number, number]>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== ESTABLISHED) continue;
      const port = (address: string) => parseInt(address.split(':')[1]!, 16);
      sockets.set(f[9]!, [port(f[1]!), port(f[2]!)]);
    }
  }
  return sockets;
}

export function sampleProcess(pid: number, listeningPort?: number): ProcessSample | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
    const fdDir = `/proc/${pid}/fd`;
    const links = fs.readdirSync(fdDir).map((fd) => {
      try {
        return fs.readlinkSync(`${fdDir}/${fd}`);
      } catch {
        return '';
      }
    });
    const sockets = tcpSockets();
    const connections: Record<string, number> = {};
    for (const link of links) {
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      const ports = inode ? sockets.get(inode) : undefined;
      if (!ports) continue;
      const name = ports[0] === listeningPort ? 'inbound' : String(ports[1]);
      connections[name] = (connections[name] ?? 0) + 1;
    }
    return { at: Date.now(), rssMb: Math.round((rssKb / 1024) * 10) / 10, fds: links.length, connections };
  } catch {
    return undefined;
  }
}

// Least-squares slope of y over x (x in ms): change per hour.
export function slopePerHour(points: { x: number; y: number }[]): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  const num = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 3_600_000;
}
