// The browser SDK served as /sdk/doorman.js: collects the open-source FingerprintJS components
// once per page, exchanges them at POST /v1/device for a device token, and never throws into
// the host page (any failure resolves to null: a verdict works without a device token).
import { load } from '@fingerprintjs/fingerprintjs';

export interface DeviceToken {
  device_token: string;
  expires_at: string;
}

export interface DoormanOptions {
  // The tenant's publishable key (pk_live_… or pk_test_…); meant to sit in page source.
  publishableKey: string;
  // Where the API lives. Default: the origin this module was loaded from.
  apiBase?: string;
  // A held token is reused until it has less than this many seconds left.
  refreshBeforeSeconds?: number;
  // Give up on one token (collecting the components included) after this long.
  timeoutMs?: number;
}

export interface DoormanClient {
  // Resolves to a token with more than `refreshBeforeSeconds` left, or to null on any failure.
  token(): Promise<DeviceToken | null>;
}

interface Held {
  token: DeviceToken;
  // Local clock: receipt time + the token's own lifetime, so a skewed page clock does not
  // make every token look expired (or everlasting).
  expiresAtMs: number;
}

function warn(reason: unknown): null {
  try {
    console.warn('[doorman] no device token:', reason instanceof Error ? reason.message : reason);
  } catch {
    // A page may have replaced console; the SDK still must not throw.
  }
  return null;
}

// The token's lifetime from its own claims (exp - iat); the SDK owns the format it reads.
function lifetimeMs(token: string, expiresAt: string, receivedAtMs: number): number {
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { iat?: number; exp?: number };
    if (typeof payload.iat === 'number' && typeof payload.exp === 'number') return (payload.exp - payload.iat) * 1000;
  } catch {
    // fall through to the absolute expiry
  }
  return Date.parse(expiresAt) - receivedAtMs;
}

export function doorman(options: DoormanOptions): DoormanClient {
  const refreshBeforeMs = (options?.refreshBeforeSeconds ?? 60) * 1000;
  const timeoutMs = options?.timeoutMs ?? 5000;
  let components: Promise<Record<string, unknown>> | undefined;
  let held: Held | undefined;
  let inFlight: Promise<DeviceToken | null> | undefined;

  // Collected once per page and reused for every refresh; retried after a failure.
  const collect = () =>
    (components ??= load({ monitoring: false })
      .then((agent) => agent.get())
      .then((result) => result.components as Record<string, unknown>)
      .catch((err: unknown) => {
        components = undefined;
        throw err;
      }));

  const exchange = async (): Promise<DeviceToken | null> => {
    if (typeof options?.publishableKey !== 'string' || !options.publishableKey.startsWith('pk_')) {
      return warn('publishableKey must be a pk_live_… or pk_test_… key');
    }
    const url = new URL('/v1/device', options.apiBase ?? import.meta.url);
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    // One deadline for both steps: a source that never settles must not leave the page waiting.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(new Error(`no token within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      const body = JSON.stringify({ components: await Promise.race([collect(), deadline]) });
      const res = await Promise.race([
        fetch(url, {
          method: 'POST',
          mode: 'cors',
          credentials: 'omit',
          headers: { Authorization: `Bearer ${options.publishableKey}`, 'Content-Type': 'application/json' },
          body,
          signal: abort.signal,
        }),
        deadline,
      ]);
      const answer = (await Promise.race([res.json(), deadline])) as Partial<DeviceToken> & { message?: string };
      if (!res.ok || typeof answer.device_token !== 'string' || typeof answer.expires_at !== 'string') {
        return warn(`POST /v1/device answered ${res.status}${answer.message ? `: ${answer.message}` : ''}`);
      }
      const token = { device_token: answer.device_token, expires_at: answer.expires_at };
      const now = Date.now();
      held = { token, expiresAtMs: now + lifetimeMs(token.device_token, token.expires_at, now) };
      return token;
    } finally {
      clearTimeout(timer);
    }
  };

  // Start collecting at once: FingerprintJS takes a few hundred milliseconds, and the token is
  // usually wanted when the user submits a form.
  try {
    void collect().catch(() => undefined);
  } catch {
    // collect() only fails asynchronously; this guards against a hostile environment.
  }

  return {
    token() {
      if (held && held.expiresAtMs - Date.now() > refreshBeforeMs) return Promise.resolve(held.token);
      inFlight ??= exchange()
        .catch(warn)
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
  };
}
