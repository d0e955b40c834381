// One page of the review queue as the console shows it: pending reviews oldest first, each with its
// identity cluster's size and whether the cluster was confirmed as abuse since the review was
// queued. Postgres answers the queue's own filters; the graph answers the cluster filters (at least
// so many accounts, confirmed since queued), which scan at most SCAN_PAGES pages of SCAN_PAGE
// queued reviews per request and say where they stopped. Without the graph the queue still works,
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
  graph: 'ok' | 'unavailable';
  reviews: QueuedReview[];
  // Present when more reviews may match after this page.
  next?: QueueCursor;
}

type QueueDeps = Pick<ConsoleDeps, 'db' | 'graph' | 'cypher' | 'config' | 'logger'>;

// The timings of Postgres ('db') and the graph ('graph') go into `timings`, for the route's
// Server-Timing header.
export async function reviewQueuePage(deps: QueueDeps, scope: Scope, query: QueueQuery, timings = new Timings()): Promise<ReviewQueuePage> {
  const byGraph = query.minAccounts !== undefined || query.confirmedSinceQueued === true;
  const size = byGraph ? SCAN_PAGE : query.limit;
  const kept: QueuedReview[] = [];
  let after = query.after;
  let graph: ReviewQueuePage['graph'] = 'ok';
  let more = false;
  let backlog: ReviewQueuePage['backlog'] | undefined;
  for (let scanned = 0; scanned < (byGraph ? SCAN_PAGES : 1); scanned++) {
    const [reviews, b] = await timings.time(
      'db',
      Promise.all([
        listPendingReviews(deps.db, scope, size + 1, after && { createdAt: after.createdAt, eventId: after.id }, query.filter),
        backlog ? Promise.resolve(backlog) : reviewBacklog(deps.db, scope),
      ]),
    );
    backlog = b;
    const page = reviews.slice(0, size);
    const clusters = await clustersOf(deps, scope, page, byGraph, timings);
    if (!clusters) graph = 'unavailable';
    more = reviews.length > size;
    for (const review of page) {
      const cluster = clusters?.get(review.eventId);
      if (!fits(query, cluster)) continue;
      kept.push({ review, ...(cluster && { cluster }) });
      if (kept.length === query.limit) break;
    }
    // A full page ends at its last review kept; otherwise the scan goes on after the page it read.
    const last = kept.length === query.limit ? kept.at(-1)!.review : page.at(-1);
    if (last) after = { createdAt: last.createdAt, id: last.eventId };
    if (kept.length === query.limit) {
      more = more || last !== page.at(-1);
      break;
    }
    if (!more) break;
  }
  return { backlog: backlog!, graph, reviews: kept, ...(more && after && { next: after }) };
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
