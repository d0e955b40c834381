// Device tokens: a device id derived from the hashed fingerprint components, carried in a short
// HS256 JWT bound to the tenant and mode (audience), so the verdict endpoint can drop tokens
// that are expired, tampered, or from another tenant or mode.
import { createHmac } from 'node:crypto';
import canonicalize from 'canonicalize';
import { SignJWT, jwtVerify } from 'jose';
import type { Scope } from '../db/queryable.js';

const ISSUER = 'doorman';

const audience = (scope: Scope) => `${scope.tenantId}:${scope.mode}`;

// Keyed and scoped: the same browser is a different device in each tenant and mode, and the id
// cannot be reversed to its components (raw components are never stored).
export function deriveDeviceId(secret: Buffer, scope: Scope, components: Record<string, unknown>): string {
  const mac = createHmac('sha256', secret)
    .update(audience(scope))
    .update('\0')
    .update(canonicalize(components) ?? '{}')
    .digest('hex');
  return `dev_${mac.slice(0, 32)}`;
}

export async function signDeviceToken(
  secret: Buffer,
  scope: Scope,
  deviceId: string,
  now: Date,
  ttlSeconds: number,
): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + ttlSeconds;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(audience(scope))
    .setSubject(deviceId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(secret);
  return { token, expiresAt: new Date(exp * 1000) };
}

// The device id, or undefined for any token that does not verify for this scope at this time.
export async function verifyDeviceToken(secret: Buffer, scope: Scope, token: string, now: Date): Promise<string | undefined> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      issuer: ISSUER,
      audience: audience(scope),
      algorithms: ['HS256'],
      currentDate: now,
    });
    return typeof payload.sub === 'string' && payload.sub.startsWith('dev_') ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}
