// A verdict-ready app against the real stores, with real local stand-ins for what cannot be
// reached here: a DNS server (MX answers), an RDAP registry (domain age) and an intel folder
// (Tor / proxy / datacenter ranges from documentation-only address blocks).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app.js';
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

function standIns() {
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
    const rdap = await startHttpStandIn((req) =>
      req.path === `/domain/${DOMAINS.young}`
        ? { status: 200, body: { objectClassName: 'domain', events: [{ eventAction: 'registration', eventDate: fiveDaysAgo }] } }
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
  app: Express;
  tenant: TestTenant;
  verdict(body: object, headers?: Record<string, string>): request.Test;
}

export async function verdictHarness(env: Record<string, string> = {}, overrides: Partial<Deps> = {}): Promise<Harness> {
  const { dns, rdap, intelDir } = await standIns();
  // A generous deadline: this machine is shared and noisy, and a verdict test asserts what was
  // decided, not how fast. Tests of the deadline itself set their own.
  const deps = testDeps({ DNS_SERVERS: dns.server, RDAP_BASE_URL: rdap.url, INTEL_DIR: intelDir, SIGNAL_DEADLINE_MS: '2000', ...env }, overrides);
  await deps.warmup();
  const app = createApp(deps);
  const tenant = await aTenant(deps);
  return {
    deps,
    app,
    tenant,
    verdict: (body, headers = {}) => request(app).post('/v1/verdict').set(bearer(tenant.keys.sk_test)).set(headers).send(body),
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
  return { event_type: 'checkout_attempt', ip: IPS.clean, payment: { card_fingerprint: 'card_ok', amount: 5000, currency: 'usd', ...payment }, ...extra };
}
