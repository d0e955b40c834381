// The old floor, kept as it was before issue 44 to show the change of baseline (its code is
// unchanged; the floor the ratios are taken against is now bench/floor-server.ts, the honest
// floor). Issue 44: this floor is not the verdict's floor. Its velocity counters and graph link
// carry no device id (it never verifies the device token), no email domain, and the default
// policy's parameters rather than the scope's; its cluster read passes no recentSince and a fixed
// 1,000 ms timeout; it does no lists match and no policy lookup; and it stores the raw body with
// empty signals. So its store calls are lighter than the verdict's.
//
// What it was described as: a bare node:http server on the same drivers and the same store functions that
// does only a verdict's mandatory I/O in this design (one velocity round trip, one read-only
// Cypher, one Postgres write with the event, its graph link and the check for waiting links that
// join it) with no validation, signals logic, engine or Express. Keys are held in memory as the
// verdict holds them. (The links it writes are applied by the verdict server's graph writer.)
import http from 'node:http';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { newId } from '../src/db/new-id.js';
import { defaultPolicy } from '../src/engine/policy.js';
import { graphLinkOf, linkKeys, readClusterFacts } from '../src/graph/identity-graph.js';
import { bearerToken, hashKey } from '../src/tenants/api-key.js';
import { findKey, type KeyRow } from '../src/tenants/key-store.js';
import { countersFor, countVelocity } from '../src/velocity/velocity-store.js';
import { writeJudgedEvent } from '../src/verdicts/verdict-store.js';

// The floor wakes no writer: its links wait for the writer's poll.
const NO_WAKE = { written: () => undefined };

const deps = createDeps(loadConfig());
// The bench never revokes a key: a plain memo stands for the verdict's key directory.
const keys = new Map<string, KeyRow>();
const keyOf = async (hash: string) => {
  let row = keys.get(hash);
  if (!row) {
    row = await findKey(deps.db, hash);
    if (row) keys.set(hash, row);
  }
  return row;
};
await deps.warmup();

const server = http.createServer(async (req, res) => {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const key = await keyOf(hashKey(bearerToken(req.headers.authorization) ?? ''));
    if (!key) throw new Error('unknown key');
    const scope = { tenantId: key.tenantId, mode: key.mode };
    const eventId = newId('evt');
    const now = new Date();
    const card = body.payment?.card_fingerprint;
    const counters = countersFor(
      scope,
      { eventType: body.event_type, eventId, ip: body.ip, card, amount: body.payment?.amount, account: body.external_user_id },
      defaultPolicy,
    );
    const link = graphLinkOf(
      scope,
      {
        eventId,
        eventType: body.event_type,
        at: now.getTime(),
        account: body.external_user_id,
        email: body.email,
        card,
        cardCountry: body.payment?.card_country,
        identity: body.identity,
      },
      25,
    );
    const [, facts] = await Promise.all([
      countVelocity(deps.redis, counters, now.getTime()),
      link ? readClusterFacts(deps.graph, deps.cypher, link, 1000) : undefined,
    ]);
    const response = JSON.stringify({ id: eventId, verdict: 'allow', reasons: [], policy_version: defaultPolicy.version });
    const event = {
      id: eventId,
      eventType: body.event_type,
      verdict: 'allow' as const,
      reasons: [],
      policyVersion: defaultPolicy.version,
      createdAt: now,
      externalUserId: body.external_user_id,
      email: body.email,
      request: body,
      signals: {},
    };
    const keysOf = link ? linkKeys(link) : [];
    const first = await writeJudgedEvent(deps.db, NO_WAKE, scope, event, {
      response,
      link,
      ...(link && { joining: { joins: keysOf, own: keysOf, seen: facts?.appliedSeq ?? null } }),
    });
    // Waiting links joined it: the verdict would read the graph again; the floor only writes.
    if (!first.written) await writeJudgedEvent(deps.db, NO_WAKE, scope, event, { response, link });
    res.writeHead(200, { 'content-type': 'application/json' }).end(response);
  } catch (err) {
    res.writeHead(500).end(String(err));
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.once('SIGTERM', () => server.close(() => void deps.close().finally(() => process.exit(0))));
