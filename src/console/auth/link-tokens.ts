// The one-time sign-in link's token: 24 random bytes and an 8-byte tag, an HMAC of them under a key
// derived from the vault's master key (SECRETS_KEY), in base64url (43 characters). The tag lets the
// door tell a token this Doorman issued from a made-up one in memory, before any lookup: only an
// issued token is looked up once its client address has spent the sign-in limit (sign-in.ts).
// Every key of SECRETS_PREVIOUS_KEYS still checks, so a key rotation keeps the day's links. Without
// a master key a token is 32 random bytes with no tag, and counts against its address like a guess.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const RANDOM_BYTES = 24;
const TAG_BYTES = 8;
const INFO = 'doorman console sign-in link tag';

export interface LinkTokens {
  issue(): string;
  // The token carries a tag of one of our keys (it may still be used, expired or never stored).
  issuedHere(token: string): boolean;
}

// One per array of master keys (the config's, which lives as long as the process).
const made = new WeakMap<readonly Buffer[], LinkTokens>();

export function linkTokens(masterKeys: readonly Buffer[]): LinkTokens {
  const known = made.get(masterKeys);
  if (known) return known;
  const keys = masterKeys.map((k) => Buffer.from(hkdfSync('sha256', k, Buffer.alloc(0), INFO, 32)));
  const tag = (key: Buffer, random: Buffer) => createHmac('sha256', key).update(random).digest().subarray(0, TAG_BYTES);
  const tokens: LinkTokens = {
    issue() {
      const random = randomBytes(RANDOM_BYTES);
      const last = keys[0] ? tag(keys[0], random) : randomBytes(TAG_BYTES);
      return Buffer.concat([random, last]).toString('base64url');
    },
    issuedHere(token) {
      const bytes = Buffer.from(token, 'base64url');
      if (bytes.length !== RANDOM_BYTES + TAG_BYTES || bytes.toString('base64url') !== token) return false;
      const random = bytes.subarray(0, RANDOM_BYTES);
      const presented = bytes.subarray(RANDOM_BYTES);
      return keys.some((key) => timingSafeEqual(tag(key, random), presented));
    },
  };
  made.set(masterKeys, tokens);
  return tokens;
}
