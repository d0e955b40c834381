// Velocity counters in Redis: one sorted set per (scope, dimension, value), scored by time.
// Reading the counts an event needs is one pipelined round trip; so is recording it, after the
// event is stored. Sets are trimmed to their window and capped, and every key has a TTL.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Scope } from '../db/queryable.js';
import type { Policy } from '../engine/policy.js';
import type { EventType, VelocitySignal } from '../engine/types.js';

// Counts saturate here: every threshold is far below, and a hub value cannot grow a set forever.
export const MAX_MEMBERS = 1000;

export interface VelocityInput {
  eventType: EventType;
  eventId: string;
  ip?: string;
  deviceId?: string;
  // Registrable domain of a non-freemail address (freemail domains are not counted).
  domain?: string;
  card?: string;
  amount?: number;
  account?: string;
}

interface Counter {
  field: keyof VelocitySignal;
  key: string;
  windowMs: number;
  // The member recorded: the event id (counts events) or a value (counts distinct values).
  member: string;
  distinct: boolean;
}

const digest = (value: string) => createHash('sha256').update(value).digest('base64url').slice(0, 22);

function windowMs(policy: Policy, code: string): number {
  return (policy.rules[code]?.windowSeconds ?? 3600) * 1000;
}

// The counters an event touches, from its type and identifiers: the single source for both
// reading and recording, so the two cannot disagree.
export function countersFor(scope: Scope, input: VelocityInput, policy: Policy): Counter[] {
  const base = `vel:${scope.tenantId}:${scope.mode}`;
  const counters: Counter[] = [];
  const add = (field: keyof VelocitySignal, dim: string, value: string | undefined, code: string, member = input.eventId) => {
    if (value !== undefined) {
      counters.push({ field, key: `${base}:${dim}:${digest(value)}`, windowMs: windowMs(policy, code), member, distinct: member !== input.eventId });
    }
  };
  if (input.eventType === 'signup') {
    add('ipSignups', 'signup_ip', input.ip, 'velocity_ip_signups');
    add('deviceSignups', 'signup_device', input.deviceId, 'velocity_device_signups');
    add('domainSignups', 'signup_domain', input.domain, 'velocity_domain_signups');
  }
  if (input.eventType === 'checkout_attempt') {
    add('cardAttempts', 'checkout_card', input.card, 'velocity_card_attempts');
    if (input.card) add('ipDistinctCards', 'checkout_ip_cards', input.ip, 'velocity_ip_card_attempts', digest(input.card));
    const maxAmount = policy.rules.card_probe_pattern?.maxAmount ?? 100;
    if (input.amount !== undefined && input.amount <= maxAmount) {
      add('cardSmallAttempts', 'probe_card', input.card, 'card_probe_pattern');
      add('ipSmallAttempts', 'probe_ip', input.ip, 'card_probe_pattern');
    }
  }
  if (input.eventType === 'login' && input.deviceId) {
    add('accountDistinctDevices', 'login_account_devices', input.account, 'ato_account_device_burst', digest(input.deviceId));
  }
  return counters;
}

// Counts including the event being judged. Rejects when Redis is unavailable.
export async function readVelocity(redis: Redis, counters: Counter[], nowMs: number): Promise<VelocitySignal> {
  if (counters.length === 0) return {};
  const pipeline = redis.pipeline();
  for (const c of counters) {
    pipeline.zcount(c.key, nowMs - c.windowMs, '+inf');
    if (c.distinct) pipeline.zscore(c.key, c.member);
  }
  const replies = (await pipeline.exec()) ?? [];
  const signal: VelocitySignal = {};
  let i = 0;
  for (const c of counters) {
    const [err, count] = replies[i++] ?? [];
    if (err) throw err;
    let alreadyCounted = false;
    if (c.distinct) {
      const [scoreErr, score] = replies[i++] ?? [];
      if (scoreErr) throw scoreErr;
      alreadyCounted = score !== null && Number(score) >= nowMs - c.windowMs;
    }
    signal[c.field] = Math.min(MAX_MEMBERS, Number(count) + (alreadyCounted ? 0 : 1));
  }
  return signal;
}

export async function recordVelocity(redis: Redis, counters: Counter[], nowMs: number): Promise<void> {
  if (counters.length === 0) return;
  const pipeline = redis.pipeline();
  for (const c of counters) {
    pipeline.zadd(c.key, nowMs, c.member);
    pipeline.zremrangebyscore(c.key, '-inf', nowMs - c.windowMs);
    pipeline.zremrangebyrank(c.key, 0, -(MAX_MEMBERS + 1));
    pipeline.pexpire(c.key, c.windowMs);
  }
  const replies = (await pipeline.exec()) ?? [];
  const failed = replies.find(([err]) => err);
  if (failed) throw failed[0];
}
