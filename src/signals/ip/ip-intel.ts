// IP intelligence: whether an address is a Tor exit, a known proxy/VPN or in a hosting range, from
// data files that reload without a restart. Lookups read one immutable snapshot; a reload builds a
// whole new one and swaps the reference, so no lookup sees a half-built set and a failed reload
// leaves the old data in place.
import path from 'node:path';
import { repoDir } from '../../config.js';
import { INTEL_CATEGORIES, loadIntel, type IntelCategory, type IntelSource } from './load-intel.js';
import { IpRangeSet } from './ip-range-set.js';
import { parseIpKey } from './parse-ip-entry.js';

export type { IntelCategory, IntelSource } from './load-intel.js';

export type IpIntelLogger = { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
export type IpIntelFlags = Record<IntelCategory, boolean>;
export type IpIntelLoad = { loadedAt: string; counts: Record<string, number>; skipped: Record<string, number> };
export type IpIntelStats = { loadedAt: string | null; counts: Record<string, number>; skipped: Record<string, number> };

export type IpIntel = {
  lookup(ip: string): IpIntelFlags;
  reload(): Promise<IpIntelLoad>;
  stats(): IpIntelStats;
};

export type IpIntelOptions = {
  dir: string;
  extraSources?: readonly IntelSource[];
  logger?: IpIntelLogger;
  now?: () => Date;
};

// <repo>/data/intel, from the sources and from the build alike. Config reads INTEL_DIR and falls
// back to this.
export const DEFAULT_INTEL_DIR = path.join(repoDir, 'data', 'intel');

type Snapshot = { sets: Record<IntelCategory, IpRangeSet>; stats: IpIntelStats };

const NO_FLAGS: IpIntelFlags = Object.freeze({ tor_exit: false, proxy: false, datacenter: false });
const silent: IpIntelLogger = { info: () => {}, warn: () => {} };

// Starts empty (every lookup false, loadedAt null): the caller awaits reload() once at boot and
// decides whether a failure there stops the boot.
export function createIpIntel(options: IpIntelOptions): IpIntel {
  const logger = options.logger ?? silent;
  const now = options.now ?? (() => new Date());
  let current: Snapshot = {
    sets: { tor_exit: IpRangeSet.empty, proxy: IpRangeSet.empty, datacenter: IpRangeSet.empty },
    stats: { loadedAt: null, counts: {}, skipped: {} },
  };
  // Reloads run one after another, so an older, slower load can never overwrite a newer one.
  let queue: Promise<unknown> = Promise.resolve();

  async function load(): Promise<IpIntelLoad> {
    const started = performance.now();
    try {
      const loaded = await loadIntel(options.dir, options.extraSources);
      for (const origin of loaded.origins) {
        if (origin.skipped > 0) {
          logger.warn(
            { origin: origin.origin, category: origin.category, skipped: origin.skipped, firstBadLines: origin.badLines },
            'ip intel: skipped lines that are not an address or CIDR',
          );
        }
      }
      const result: IpIntelLoad = { loadedAt: now().toISOString(), counts: { ...loaded.counts }, skipped: { ...loaded.skipped } };
      current = { sets: loaded.sets, stats: result };
      const durationMs = Math.round(performance.now() - started);
      logger.info({ dir: options.dir, ...result, ranges: loaded.ranges, durationMs }, 'ip intel loaded');
      return { ...result, counts: { ...result.counts }, skipped: { ...result.skipped } };
    } catch (err) {
      logger.warn(
        { dir: options.dir, err: err instanceof Error ? err.message : String(err), keptLoadedAt: current.stats.loadedAt },
        'ip intel reload failed; keeping the previous data',
      );
      throw err;
    }
  }

  return {
    lookup(ip) {
      const key = typeof ip === 'string' ? parseIpKey(ip) : null;
      if (!key) return { ...NO_FLAGS };
      const { sets } = current;
      return { tor_exit: sets.tor_exit.has(key), proxy: sets.proxy.has(key), datacenter: sets.datacenter.has(key) };
    },
    reload() {
      const run = queue.then(load, load);
      queue = run.catch(() => undefined);
      return run;
    },
    stats() {
      const { stats } = current;
      return { loadedAt: stats.loadedAt, counts: { ...stats.counts }, skipped: { ...stats.skipped } };
    },
  };
}

type SignalTarget = {
  on(event: 'SIGHUP', listener: () => void): unknown;
  off(event: 'SIGHUP', listener: () => void): unknown;
};

// Opt-in: the server or CLI calls it. Listening on SIGHUP replaces Node's default for it
// (terminate), which is the point. A failed reload was logged by reload() and is swallowed here,
// so it can never become an unhandled rejection. Returns the uninstaller.
export function installSighupReload(intel: { reload(): Promise<unknown> }, target: SignalTarget = process): () => void {
  const onHangup = () => {
    intel.reload().catch(() => undefined);
  };
  target.on('SIGHUP', onHangup);
  return () => {
    target.off('SIGHUP', onHangup);
  };
}

export { INTEL_CATEGORIES };
