// Device tokens: a device id derived from the canonical fingerprint components, carried in a
// short HS256 JWT bound to the tenant and mode (audience) and naming its signing key (`kid`), so
// the verdict endpoint can drop tokens that are expired, tampered, malformed, signed by a key
// it does not hold, or from another tenant or mode.
import { createHmac } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Scope } from '../scope.js';
import { canonicalComponents } from './canonical-components.js';
import type { DeviceKeyRing, SigningKey } from './device-key-ring.js';

const ISSUER = 'doorman';

const audience = (scope: Scope) => `${scope.tenantId}:${scope.mode}`;

// Keyed and scoped: the same browser is a different device in each tenant and mode, and the id
// cannot be reversed to its components. The key is never rotated (that would split every
// device's history); signing keys are rotated instead.
export function deriveDeviceId(idKey: Buffer, scope: Scope, components: Record<string, unknown>): string {
  const mac = createHmac('sha256', idKey).update(audience(scope)).update('\0').update(canonicalComponents(components)).digest('hex');
  return `dev_${mac.slice(0, 32)}`;
}

export async function signDeviceToken(
  signing: SigningKey,
  scope: Scope,
  deviceId: string,
  now: Date,
  ttlSeconds: number,
): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + ttlSeconds;
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: signing.kid })
    .setIssuer(ISSUER)
    .setAudience(audience(scope))
    .setSubject(deviceId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(signing.key);
  return { token, expiresAt: new Date(exp * 1000) };
}

// The device id, or undefined for any token that does not verify for this scope at this time.
// Keys come from memory; a kid the ring does not hold is refused without a query per request.
export async function verifyDeviceToken(
  deps: { secrets: { deviceKeys: DeviceKeyRing } },
  scope: Scope,
  token: string,
  now: Date,
): Promise<string | undefined> {
  try {
    const { payload } = await jwtVerify(
      token,
      async (header) => {
        const key = typeof header.kid === 'string' ? await deps.secrets.deviceKeys.verificationKey(header.kid, now) : undefined;
        if (!key) throw new Error('unknown or retired signing key');
        return key.key;
      },
      { issuer: ISSUER, audience: audience(scope), algorithms: ['HS256'], currentDate: now },
    );
    return typeof payload.sub === 'string' && payload.sub.startsWith('dev_') ? payload.sub : undefined;
  } catch {
    return undefined;
  }
}
