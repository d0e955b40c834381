// getDeviceToken() for browsers: loads Doorman's own SDK from the Doorman you point it at
// (/sdk/v1/doorman.js, which bundles the FingerprintJS build that Doorman's device ids are
// defined against) and asks it for a token. Like the SDK it never throws into the page: any
// failure resolves to null, and a verdict works without a device token.

export interface DeviceToken {
  device_token: string;
  expires_at: string;
}

export interface DeviceTokenOptions {
  // pk_live_… or pk_test_…: meant to sit in page source.
  publishableKey: string;
  // Your Doorman's origin, e.g. https://doorman.example.com.
  baseUrl: string;
  // Give up (resolve to null) after this long, loading the SDK included. Default 5000 ms.
  timeoutMs?: number;
}

// The served SDK's interface (sdk/doorman.ts in the Doorman repository).
interface SdkModule {
  doorman(options: { publishableKey: string; apiBase?: string; timeoutMs?: number }): { token(): Promise<DeviceToken | null> };
}
type SdkClient = ReturnType<SdkModule['doorman']>;

// One SDK client per Doorman and key: it collects the components once per page and reuses a
// token until it is about to expire.
const clients = new Map<string, Promise<SdkClient>>();

export async function getDeviceToken(options: DeviceTokenOptions): Promise<DeviceToken | null> {
  const timeoutMs = options?.timeoutMs ?? 5000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(warn(`no device token within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([token(options, timeoutMs), deadline]);
  } catch (err) {
    return warn(err);
  } finally {
    clearTimeout(timer);
  }
}

async function token(options: DeviceTokenOptions, timeoutMs: number): Promise<DeviceToken | null> {
  if (typeof options?.publishableKey !== 'string' || !/^pk_(live|test)_/.test(options.publishableKey)) {
    return warn('publishableKey must be a publishable key (pk_live_… or pk_test_…)');
  }
  const sdkUrl = new URL('/sdk/v1/doorman.js', options.baseUrl).href;
  const id = `${sdkUrl} ${options.publishableKey}`;
  let client = clients.get(id);
  if (!client) {
    // Loaded at run time from Doorman itself, so bundlers must leave the import alone.
    client = (import(/* webpackIgnore: true */ /* @vite-ignore */ sdkUrl) as Promise<SdkModule>).then((sdk) =>
      sdk.doorman({ publishableKey: options.publishableKey, apiBase: options.baseUrl, timeoutMs }),
    );
    clients.set(id, client);
    // A failed load is tried again on the next call.
    client.catch(() => clients.delete(id));
  }
  return (await client).token();
}

function warn(reason: unknown): null {
  try {
    console.warn('[doorman] no device token:', reason instanceof Error ? reason.message : reason);
  } catch {
    // A page may have replaced console; this must still not throw.
  }
  return null;
}
