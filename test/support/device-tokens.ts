// Helpers for device-token tests: the recorded FingerprintJS component sets (see
// record-device-fixtures.ts), a token from the real POST /v1/device, and a token's claims.
import fs from 'node:fs';
import path from 'node:path';
import type { App } from '../../src/app.js';
import request from 'supertest';
import { bearer } from './fixtures.js';

export const RECORDED = [
  'desktop-load-1',
  'desktop-load-2',
  'desktop-resized',
  'desktop-tokyo-ja',
  'phone-touch',
  'hidpi-laptop',
  'windows-16-cores',
  'no-webgl',
  'other-fonts',
] as const;
export type Recorded = (typeof RECORDED)[number];

export function recorded(name: Recorded): { components: Record<string, { value?: unknown; error?: unknown; duration: number }> } {
  return JSON.parse(fs.readFileSync(path.join('test', 'fixtures', 'device-components', `${name}.json`), 'utf8')).body;
}

const part = (token: string, i: number) => JSON.parse(Buffer.from(token.split('.')[i]!, 'base64url').toString('utf8'));
export const tokenHeader = (token: string): { alg: string; kid?: string } => part(token, 0);
export const tokenClaims = (token: string): { sub: string; aud: string; iat: number; exp: number } => part(token, 1);
export const deviceIdOf = (token: string): string => tokenClaims(token).sub;

export async function issueToken(app: App, publishableKey: string, body: object): Promise<string> {
  const res = await request(app).post('/v1/device').set(bearer(publishableKey)).send(body);
  if (res.status !== 200) throw new Error(`POST /v1/device answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.device_token as string;
}
