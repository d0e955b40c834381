// One feed fetched over HTTP: a conditional GET (If-None-Match / If-Modified-Since from the last
// good answer, so an unchanged feed costs one 304), bounded in time (connection and body alike)
// and in size (the body is read as it arrives and cut past the cap, before it is all in memory).
// HTTPS only, but for a source on this machine (a local mirror, a test's stand-in).

export type FetchOutcome =
  | { kind: 'unchanged'; etag: string | null; lastModified: string | null }
  | { kind: 'fetched'; body: string; etag: string | null; lastModified: string | null };

export class FeedFetchError extends Error {
  override name = 'FeedFetchError';
}

export interface FetchBounds {
  timeoutMs: number;
  maxBytes: number;
  // Sent with the request; a feed publisher may ask for one that says who fetches.
  userAgent?: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

// https:, or http: to this machine only.
export function allowedFeedUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
}

export async function fetchFeed(
  url: string,
  validators: { etag: string | null; lastModified: string | null },
  bounds: FetchBounds,
): Promise<FetchOutcome> {
  if (!allowedFeedUrl(url)) throw new FeedFetchError(`refused: ${url} is neither https nor on this machine`);
  const signal = AbortSignal.timeout(bounds.timeoutMs);
  const headers: Record<string, string> = { accept: '*/*', 'user-agent': bounds.userAgent ?? 'doorman-intel-update' };
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  try {
    const response = await fetch(url, { headers, signal, redirect: 'follow' });
    // A redirect may not lead away from https (or off this machine).
    if (!allowedFeedUrl(response.url || url)) {
      await response.body?.cancel();
      throw new FeedFetchError(`refused: redirected to ${response.url}`);
    }
    const etag = response.headers.get('etag');
    const lastModified = response.headers.get('last-modified');
    if (response.status === 304) {
      await response.body?.cancel();
      return { kind: 'unchanged', etag, lastModified };
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new FeedFetchError(`HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > bounds.maxBytes) {
      await response.body?.cancel();
      throw new FeedFetchError(`larger than ${bounds.maxBytes} bytes (content-length ${declared})`);
    }
    return { kind: 'fetched', body: await readBounded(response, bounds.maxBytes), etag, lastModified };
  } catch (err) {
    if (err instanceof FeedFetchError) throw err;
    if (signal.aborted) throw new FeedFetchError(`no complete answer within ${bounds.timeoutMs} ms`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new FeedFetchError(cause?.code ?? cause?.message ?? (err as Error).message);
  }
}

// The body as UTF-8 text, read chunk by chunk and abandoned once past maxBytes (a body that
// arrives compressed is counted as it decompresses).
async function readBounded(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new FeedFetchError(`larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}
