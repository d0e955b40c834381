// Velocity counters in Redis: one sorted set per (scope, dimension, value), scored by time.
// Counting an event is one atomic script that adds it and returns the counts including it; a
// request that fails before its commit takes its additions back. Every member belongs to one
// event (a distinct-value set records `value|eventId`, and counts the distinct values), so taking
// an addition back removes exactly this request's members and never another request's. Sets are trimmed to their
// window and capped, and every key has a TTL. Every key of a scope carries the same hash tag
// ({tenant:mode}), so the script touches one slot and runs unchanged on a Redis Cluster.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Scope } from '../scope.js';
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
  // The member recorded, always this event's own: the event id (the set counts events), or
  // `<value digest>|<event id>` (the set counts distinct values).
  member: string;
  distinct: boolean;
}

const digest = (value: string) => createHash('sha256').update(value).digest('base64url').slice(0, 22);

function windowMs(policy: Policy, code: string): number {
  return (policy.rules[code]?.windowSeconds ?? 3600) * 1000;
}

// The counters an event touches, from its type and identifiers: the single source for both
// counting and undoing, so the two cannot disagree.
export function countersFor(scope: Scope, input: VelocityInput, policy: Policy): Counter[] {
  const base = `vel:{${scope.tenantId}:${scope.mode}}`;
  const counters: Counter[] = [];
  const add = (field: keyof VelocitySignal, dim: string, value: string | undefined, code: string, distinctValue?: string) => {
    if (value !== undefined) {
      const member = distinctValue === undefined ? input.eventId : `${digest(distinctValue)}|${input.eventId}`;
      counters.push({
        field,
        key: `${base}:${dim}:${digest(value)}`,
        windowMs: windowMs(policy, code),
        member,
        distinct: distinctValue !== undefined,
      });
    }
  };
  if (input.eventType === 'signup') {
    add('ipSignups', 'signup_ip', input.ip, 'velocity_ip_signups');
    add('deviceSignups', 'signup_device', input.deviceId, 'velocity_device_signups');
    add('domainSignups', 'signup_domain', input.domain, 'velocity_domain_signups');
  }
  if (input.eventType === 'checkout_attempt') {
    add('cardAttempts', 'checkout_card', input.card, 'velocity_card_attempts');
    if (input.card) add('ipDistinctCards', 'checkout_ip_cards', input.ip, 'velocity_ip_card_attempts', input.card);
    const maxAmount = policy.rules.card_probe_pattern?.maxAmount ?? 100;
    if (input.amount !== undefined && input.amount <= maxAmount) {
      add('cardSmallAttempts', 'probe_card', input.card, 'card_probe_pattern');
      add('ipSmallAttempts', 'probe_ip', input.ip, 'card_probe_pattern');
    }
  }
  if (input.eventType === 'login' && input.deviceId) {
    add('accountDistinctDevices', 'login_account_devices', input.account, 'ato_account_device_burst', input.deviceId);
  }
  return counters;
}

// Adds the event to every counter and returns the counts including it, in one atomic step (one
// Redis round trip), so parallel requests count one by one. A distinct-value set answers how many
// distinct values its members name (the part before `|`; a member without one, written before
// members carried their event, is its own value). Sets are capped at MAX_MEMBERS, so that count
// reads at most that many members.
// KEYS: the counters' keys. ARGV: now (ms), the cap, then per counter its window (ms), member and
// 1 when it counts distinct values.
const COUNT_SCRIPT = `
local now = tonumber(ARGV[1])
local cap = tonumber(ARGV[2])
local out = {}
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[3 * i])
  local member = ARGV[3 * i + 1]
  local distinct = ARGV[3 * i + 2] == '1'
  redis.call('ZADD', key, now, member)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. (now - window))
  local n = redis.call('ZCARD', key)
  if n > cap then
    redis.call('ZREMRANGEBYRANK', key, 0, n - cap - 1)
    n = cap
  end
  if distinct then
    local seen, values = {}, 0
    for _, m in ipairs(redis.call('ZRANGE', key, 0, -1)) do
      local value = string.match(m, '^([^|]*)')
      if not seen[value] then
        seen[value] = true
        values = values + 1
      end
    end
    n = values
  end
  redis.call('PEXPIRE', key, window)
  out[i] = n
end
return out`;

export interface Counted {
  signal: VelocitySignal;
  // Undoes this request's additions (a failed write, a losing idempotency twin).
  undo(): Promise<void>;
}

type ScriptRedis = Redis & { countVelocity(numKeys: number, ...args: (string | number)[]): Promise<(number | string)[]> };

function withScript(redis: Redis): ScriptRedis {
  const r = redis as ScriptRedis;
  // ioredis sends EVALSHA and falls back to EVAL once per connection when the script is unknown.
  if (typeof r.countVelocity !== 'function') redis.defineCommand('countVelocity', { lua: COUNT_SCRIPT });
  return r;
}

// Loads the script into Redis ahead of the first verdict (warm-up).
export async function loadVelocityScript(redis: Redis): Promise<void> {
  await withScript(redis).countVelocity(0, Date.now(), MAX_MEMBERS);
}

// Rejects when Redis is unavailable (the verdict goes on without velocity, and nothing counted).
export async function countVelocity(redis: Redis, counters: Counter[], nowMs: number): Promise<Counted> {
  if (counters.length === 0) return { signal: {}, undo: async () => undefined };
  const args: (string | number)[] = [...counters.map((c) => c.key), nowMs, MAX_MEMBERS];
  for (const c of counters) args.push(c.windowMs, c.member, c.distinct ? 1 : 0);
  const replies = await withScript(redis).countVelocity(counters.length, ...args);
  const signal: VelocitySignal = {};
  counters.forEach((c, i) => {
    signal[c.field] = Number(replies[i]);
  });
  return {
    signal,
    // Removes this request's own members, and nothing else: a member names its event.
    async undo() {
      const pipeline = redis.pipeline();
      for (const c of counters) pipeline.zrem(c.key, c.member);
      const replies = (await pipeline.exec()) ?? [];
      const failed = replies.find(([err]) => err);
      if (failed) throw failed[0];
    },
  };
}
