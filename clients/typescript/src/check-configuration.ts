// The client's configuration checked when it is made, so a mistake fails the process at start-up
// instead of failing open on every screen() for ever: the key's shape (a secret key, nothing
// around it), baseUrl's shape (an absolute http(s) URL, no credentials, query or fragment), and a
// port Node's fetch would refuse on every call.
import type { DoormanClientOptions } from './client-options.js';

// The Fetch standard's "bad ports": fetch() refuses them before connecting.
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117,
  119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636,
  989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

export function checkConfiguration(options: DoormanClientOptions): { baseUrl: string; mode: 'live' | 'test' } {
  if (!options || typeof options !== 'object') throw new TypeError('doormanClient() takes { secretKey, baseUrl }');
  const { secretKey, baseUrl } = options;
  if (typeof secretKey !== 'string' || secretKey === '') {
    throw new TypeError('secretKey is missing: pass your secret key (sk_live_… or sk_test_…), e.g. from process.env.DOORMAN_SECRET_KEY');
  }
  if (/^pk_(live|test)_/.test(secretKey)) {
    throw new TypeError(
      'secretKey is a publishable key (pk_…): it only works for getDeviceToken() in the browser; pass a secret key (sk_live_… or sk_test_…)',
    );
  }
  if (/\s/.test(secretKey)) throw new TypeError('secretKey holds a space or a line break: copy the key alone');
  const key = /^sk_(live|test)_(.*)$/.exec(secretKey);
  if (!key) throw new TypeError('secretKey must start sk_live_ or sk_test_');
  if (key[2] === '') throw new TypeError(`secretKey is only its prefix (sk_${key[1]}_): the rest of the key is missing`);

  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
    throw new TypeError('baseUrl is missing: pass where your Doorman listens, e.g. https://doorman.internal.example');
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not an absolute URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`baseUrl must be http or https, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username !== '' || url.password !== '')
    throw new TypeError('baseUrl must not hold credentials: the secret key is the only credential');
  if (url.search !== '' || url.hash !== '') throw new TypeError('baseUrl must not have a query or a fragment');
  // Node's own fetch refuses these ports; another fetch implementation may not.
  if (!options.fetch && url.port !== '' && BAD_PORTS.has(Number(url.port))) {
    throw new TypeError(
      `baseUrl's port ${url.port} is one fetch() refuses to connect to (a "bad port" of the Fetch standard): serve Doorman on another`,
    );
  }
  return { baseUrl: url.href.replace(/\/+$/, ''), mode: key[1] as 'live' | 'test' };
}
