// "What changed?" on the overview: the last 24 h against the 24 h before and the same 24 h a week
// earlier, for verdicts, each reason, reviews opened and resolved, feedback, policy publications,
// and the clusters new accounts made or grew (the graph's part; null when it does not answer).
// Reads only; the overview's route sends it with the rest of the overview.
import type { Scope } from '../scope.js';
import type { ConsoleDeps } from './console-deps.js';
import { activityByWindow, publications, reasonsByWindow, verdictsByWindow, type Window } from './overview-store.js';
import { changeCounts, clustersChangedIn } from './cluster-changes.js';
import type { Overview, WindowName } from './generated/console-wire.js';

const DAY = 86_400_000;

// The store answers for the windows it is given; the wire names the three.
const byWindow = <T>(values: Record<string, T>): Record<WindowName, T> => ({
  today: values.today!,
  yesterday: values.yesterday!,
  last_week: values.last_week!,
});

export async function whatChanged(
  deps: Pick<ConsoleDeps, 'db' | 'clock' | 'graph' | 'cypher' | 'config' | 'logger'>,
  scope: Scope,
): Promise<Pick<Overview, 'windows' | 'compare'>> {
  const now = deps.clock.now().getTime();
  const windows: (Window & { name: WindowName })[] = [
    { name: 'today', from: new Date(now - DAY), to: new Date(now) },
    { name: 'yesterday', from: new Date(now - 2 * DAY), to: new Date(now - DAY) },
    { name: 'last_week', from: new Date(now - 8 * DAY), to: new Date(now - 7 * DAY) },
  ];
  // The same reading as the list each count leads to (cluster-changes.ts), so the two agree.
  const growthIn = async (w: Window) => {
    try {
      return await clustersChangedIn(deps, scope, w);
    } catch (err) {
      deps.logger.warn({ err: String(err) }, 'console: cluster growth unavailable');
      return null;
    }
  };
  const [verdicts, reasons, activity, published, growth] = await Promise.all([
    verdictsByWindow(deps.db, scope, windows),
    reasonsByWindow(deps.db, scope, windows, 15),
    activityByWindow(deps.db, scope, windows),
    publications(deps.db, scope, windows[2]!.from),
    Promise.all(windows.map(growthIn)),
  ]);
  const clusters = Object.fromEntries(
    windows.map((w, i) => {
      const g = growth[i];
      return [w.name, g ? { ...changeCounts(g.clusters), capped: g.capped } : null];
    }),
  );
  return {
    windows: windows.map((w) => ({ name: w.name, from: w.from.toISOString(), to: w.to.toISOString() })),
    compare: {
      verdicts: byWindow(verdicts),
      reasons: reasons.map((r) => ({ code: r.code, counts: byWindow(r.counts) })),
      activity: byWindow(activity),
      clusters: byWindow(clusters),
      publications: published,
    },
  };
}
