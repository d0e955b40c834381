// API key format, generation, plausibility and hashing. Keys are 32 random base62 characters
// after the prefix (about 190 bits), so a plain SHA-256 is a safe stored form: there is nothing
// to brute-force that a slow hash would protect.
import { createHash, randomInt } from 'node:crypto';

export type KeyKind = 'secret' | 'publishable';
export type Mode = 'live' | 'test';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
// Accept 24..64 random characters, so keys minted by a future format still parse.
const KEY_PATTERN = /^(sk|pk)_(live|test)_([0-9A-Za-z]{24,64})$/;

export interface ParsedKey {
  kind: KeyKind;
  mode: Mode;
}

export function generateKey(kind: KeyKind, mode: Mode): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(ALPHABET.length)];
  return `${kind === 'secret' ? 'sk' : 'pk'}_${mode}_${random}`;
}

// Plausible means well-formed; it says nothing about whether the key exists.
export function parseKey(raw: string): ParsedKey | undefined {
  const m = KEY_PATTERN.exec(raw);
  if (!m) return undefined;
  return { kind: m[1] === 'sk' ? 'secret' : 'publishable', mode: m[2] as Mode };
}

export function hashKey(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

export function keyHint(raw: string): string {
  return `${raw.slice(0, 8)}…${raw.slice(-4)}`;
}

// The key from an Authorization header, or undefined when the header is absent or not Bearer.
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}
