// A verdict-ready app against the real stores, with real local stand-ins for what cannot be
// reached here: a DNS server (MX answers), an RDAP registry (domain age) and an intel folder
// (Tor / proxy / datacenter ranges from documentation-only address blocks).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApp, type App } from '../../src/app.js';
import type { Deps } from '../../src/deps.js';
import { startDnsStandIn, type DnsStandIn } from './dns-stand-in.js';
import { startHttpStandIn, type HttpStandIn } from './http-stand-in.js';
import { aTenant, bearer, type TestTenant } from './fixtures.js';
import { testDeps } from './test-deps.js';

export const IPS = {
  clean: '100.64.10.1',
  tor: '203.0.113.7',
  proxy: '198.51.100.7',
  datacenter: '192.0.2.7',
};

const MX = [{ exchange: 'mx.example.net', priority: 10 }];
export const DOMAINS = {
  good: 'shop-mail.com',
  corp: 'acme-corp.com',
  noMx: 'nomx-corp.com',
  nullMx: 'nullmx-corp.com',
  slowDns: 'slow-dns-corp.com',
  young: 'fresh-startup.com',
  disposable: 'mailinator.com',
  relay: 'duck.com',
  freemail: 'gmail.com',
};

let shared: Promise<{ dns: DnsStandIn; rdap: HttpStandIn; intelDir: string }> | undefined;

export function standIns(): Promise<{ dns: DnsStandIn; rdap: HttpStandIn; intelDir: string }> {
  shared ??= (async () => {
    const dns = await startDnsStandIn({
      [DOMAINS.good]: { mx: MX },
      [DOMAINS.corp]: { mx: MX },
      [DOMAINS.nullMx]: { mx: [{ exchange: '.', priority: 0 }] },
      [DOMAINS.slowDns]: { mx: MX, delayMs: 2000 },
      [DOMAINS.young]: { mx: MX },
      [DOMAINS.disposable]: { mx: MX },
      [DOMAINS.relay]: { mx: MX },
      [DOMAINS.freemail]: { mx: MX },
    });
    const fiveDaysAgo = new Date(Date.now() - 5 * 86_400_000).toISOString();
    // The young domain registered five days ago; the company domain in 2009 (an established
    // company's, as a team onboarding's); every other one unknown to the registry.
    const registered = (eventDate: string) => ({
      status: 200,
      body: { objectClassName: 'domain', events: [{ eventAction: 'registration', eventDate }] },
    });
    const rdap = await startHttpStandIn((req) =>
      req.path === `/domain/${DOMAINS.young}`
        ? registered(fiveDaysAgo)
        : req.path === `/domain/${DOMAINS.corp}`
          ? registered('2009-03-02T00:00:00Z')
          : { status: 404, body: { errorCode: 404 } },
    );
    const intelDir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-intel-'));
    fs.writeFileSync(path.join(intelDir, 'tor_exit.txt'), '203.0.113.0/24\n');
    fs.writeFileSync(path.join(intelDir, 'proxy.txt'), '198.51.100.0/24\n');
    fs.writeFileSync(path.join(intelDir, 'datacenter.txt'), '192.0.2.0/24\n');
    after(async () => {
      await Promise.all([dns.close(), rdap.close()]);
      fs.rmSync(intelDir, { recursive: true, force: true });
    });
    return { dns, rdap, intelDir };
  })();
  return shared;
}

export interface Harness {
  deps: Deps;
  app: App;
  tenant: TestTenant;
  // A verdict, then a wait until its graph link is applied: the next step of a test's story
  // comes after the link lag, as a user's next action does (the lag is measured by the bench).
  verdict(body: object, headers?: Record<string, string>): Promise<request.Response>;
  // Resolves once nothing of this tenant waits in the graph outbox.
  graphSettled(): Promise<void>;
}

export async function graphSettled(deps: Deps, tenantId: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await deps.db.query('SELECT 1 FROM graph_outbox WHERE tenant_id = $1 AND failed_at IS NULL LIMIT 1', [tenantId]);
    if (rows.length === 0) return;
    if (Date.now() > deadline) throw new Error(`graph outbox of ${tenantId} not applied within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export async function verdictHarness(env: Record<string, string> = {}, overrides: Partial<Deps> = {}): Promise<Harness> {
  const { dns, rdap, intelDir } = await standIns();
  // A generous deadline: this machine is shared and noisy, and a verdict test asserts what was
  // decided, not how fast. Tests of the deadline itself set their own.
  const deps = testDeps(
    { DNS_SERVERS: dns.server, RDAP_BASE_URL: rdap.url, INTEL_DIR: intelDir, SIGNAL_DEADLINE_MS: '2000', ...env },
    overrides,
  );
  await deps.warmup();
  const app = createApp(deps);
  const tenant = await aTenant(deps);
  const settled = () => graphSettled(deps, tenant.tenantId);
  return {
    deps,
    app,
    tenant,
    async verdict(body, headers = {}) {
      const res = await request(app).post('/v1/verdict').set(bearer(tenant.keys.sk_test)).set(headers).send(body);
      await settled();
      return res;
    },
    graphSettled: settled,
  };
}

export const codes = (res: request.Response): string[] => (res.body.reasons as { code: string }[]).map((r) => r.code).sort();

let counter = 0;
// A signup that fires nothing: good domain, clean ip, a unique address.
export function aSignup(extra: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return { event_type: 'signup', email: `user${counter}.${Date.now()}@${DOMAINS.good}`, ip: IPS.clean, ...extra };
}

export function aCheckout(extra: Record<string, unknown> = {}, payment: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event_type: 'checkout_attempt',
    ip: IPS.clean,
    payment: { card_fingerprint: 'card_ok', amount: 5000, currency: 'usd', ...payment },
    ...extra,
  };
}
