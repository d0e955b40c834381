// One page of the review queue as the console shows it: pending reviews oldest first, each with its
// identity cluster's size and whether the cluster was confirmed as abuse since the review was
// queued. Postgres answers the queue's own filters; the graph answers the cluster filters (at least
// so many accounts, confirmed since queued), which scan at most SCAN_PAGES pages of SCAN_PAGE
// queued reviews per request and say where they stopped. Under filters the first page says how
// many reviews match: Postgres counts its own filters; a cluster filter counts what its scan
// reached, scanning on past a full page within the same bound. Without the graph the queue still works,
// with `graph: 'unavailable'` and no clusters; a cluster filter then cannot be answered. Reads only.
// A read model of the console's, beside the cluster reads it joins (cluster-picture.ts).
import type { Scope } from '../scope.js';
import type { ConsoleDeps } from './console-deps.js';
import { AppError } from '../errors.js';
import { Timings } from '../timings.js';
import { listPendingReviews, reviewBacklog, type PendingReview, type QueueFilter } from '../reviews/review-store.js';
import { reviewClusters, type ReviewCluster } from './cluster-picture.js';

// A filter the graph answers looks at up to SCAN_PAGES x SCAN_PAGE queued reviews per request.
const SCAN_PAGE = 200;
const SCAN_PAGES = 10;

// Where a page starts or the next one would: the (created_at, event id) of the last review before it.
export interface QueueCursor {
  createdAt: Date;
  id: string;
}

export interface QueueQuery {
  // The filters Postgres answers.
  filter: QueueFilter;
  // The filters the graph answers.
  minAccounts?: number;
  confirmedSinceQueued?: boolean;
  limit: number;
  after?: QueueCursor;
}

export interface QueuedReview {
  review: PendingReview;
  cluster?: ReviewCluster;
}

export interface ReviewQueuePage {
  backlog: { pending: number; oldest: Date | null };
  // Under filters, on the first page: how many pending reviews match them. A cluster filter counts
  // what its scan reached; `complete` is false when the scan stopped at its bound first.
  matching?: { count: number; complete: boolean };
  graph: 'ok' | 'unavailable';
  reviews: QueuedReview[];
  // Present when more reviews may match after this page.
  next?: QueueCursor;
}

type QueueDeps = Pick<ConsoleDeps, 'db' | 'graph' | 'cypher' | 'config' | 'logger'>;

const cursorOf = (r: PendingReview): QueueCursor => ({ createdAt: r.createdAt, id: r.eventId });

// The timings of Postgres ('db') and the graph ('graph') go into `timings`, for the route's
// Server-Timing header. A cluster filter's first page goes on scanning past a full page, within the
// same bound, to count the matches.
export async function reviewQueuePage(deps: QueueDeps, scope: Scope, query: QueueQuery, timings = new Timings()): Promise<ReviewQueuePage> {
  const byGraph = query.minAccounts !== undefined || query.confirmedSinceQueued === true;
  const filtered = byGraph || Object.values(query.filter).some((v) => v !== undefined && v !== '');
  const counting = byGraph && !query.after;
  const size = byGraph ? SCAN_PAGE : query.limit;
  const kept: QueuedReview[] = [];
  let after = query.after;
  let graph: ReviewQueuePage['graph'] = 'ok';
  // What the scan saw: every match, whether it read to the end of the reviews, and whether a review
  // came after a full page (a match, when counting; any review, when not).
  let matched = 0;
  let toTheEnd = false;
  let unread = false;
  const [backlog, matchingBacklog] = await timings.time(
    'db',
    Promise.all([
      reviewBacklog(deps.db, scope),
      filtered && !byGraph && !query.after ? reviewBacklog(deps.db, scope, query.filter) : Promise.resolve(undefined),
    ]),
  );
  scan: for (let scanned = 0; scanned < (byGraph ? SCAN_PAGES : 1); scanned++) {
    const reviews = await timings.time(
      'db',
      listPendingReviews(deps.db, scope, size + 1, after && { createdAt: after.createdAt, eventId: after.id }, query.filter),
    );
    const page = reviews.slice(0, size);
    const clusters = await clustersOf(deps, scope, page, byGraph, timings);
    if (!clusters) graph = 'unavailable';
    for (const review of page) {
      if (kept.length === query.limit && !counting) {
        unread = true;
        break scan;
      }
      const cluster = clusters?.get(review.eventId);
      if (!fits(query, cluster)) continue;
      matched += 1;
      if (kept.length < query.limit) kept.push({ review, ...(cluster && { cluster }) });
      else unread = true;
    }
    if (page.length > 0) after = cursorOf(page.at(-1)!);
    if (reviews.length <= size) {
      toTheEnd = true;
      break;
    }
    if (kept.length === query.limit && !counting) {
      unread = true;
      break;
    }
  }
  // A full page ends at its last review kept; otherwise the scan goes on after the page it read.
  const full = kept.length === query.limit;
  const next = full ? (unread || !toTheEnd ? cursorOf(kept.at(-1)!.review) : undefined) : toTheEnd ? undefined : after;
  const matching = counting
    ? { count: matched, complete: toTheEnd }
    : matchingBacklog && { count: matchingBacklog.pending, complete: true };
  return { backlog, ...(matching && { matching }), graph, reviews: kept, ...(next && { next }) };
}

// Each review's cluster, or undefined when the graph did not answer (an error when a cluster filter
// needs it).
async function clustersOf(
  deps: QueueDeps,
  scope: Scope,
  page: PendingReview[],
  byGraph: boolean,
  timings: Timings,
): Promise<Map<string, ReviewCluster> | undefined> {
  try {
    return await timings.time(
      'graph',
      reviewClusters(
        deps,
        scope,
        page.map((r) => ({ eventId: r.eventId, queuedAt: r.createdAt })),
      ),
    );
  } catch (err) {
    deps.logger.warn({ err: String(err) }, 'console: review clusters unavailable');
    if (byGraph)
      throw AppError.unavailable(
        'The identity graph did not answer, so the queue cannot be filtered by cluster now; clear the cluster filters or try again.',
      );
    return undefined;
  }
}

// A review without a cluster counts as its one account, never confirmed.
const fits = (query: QueueQuery, cluster: ReviewCluster | undefined): boolean =>
  (query.minAccounts === undefined || (cluster?.accounts ?? 1) >= query.minAccounts) &&
  (!query.confirmedSinceQueued || Boolean(cluster?.confirmedAt));
