// Analysts for console tests: an account made by the operator's use case, signed in through its
// one-time link over HTTP, and a small client that sends the session cookie and the CSRF token
// as the console's own script does.
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/app.js';
import request from 'supertest';
import type { Deps } from '../../src/deps.js';
import { addAnalyst } from '../../src/console/auth/manage-analysts.js';
import { aClientIp } from './fixtures.js';

export const PASSWORD = 'correct horse battery staple';

export interface ConsoleClient {
  email: string;
  analystId: string;
  cookie: string;
  csrf: string;
  get(path: string): request.Test;
  post(path: string, body?: object): request.Test;
}

export const tokenOf = (signInUrl: string): string => new URL(signInUrl).hash.replace(/^#token=/, '');

export const cookieOf = (res: request.Response): string => {
  const header = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('doorman_console='));
  if (!header) throw new Error(`no session cookie in ${res.status} ${JSON.stringify(res.body)}`);
  return header.split(';')[0]!;
};

export function consoleClient(app: App, cookie: string, csrf: string, who: { email: string; analystId: string }): ConsoleClient {
  return {
    ...who,
    cookie,
    csrf,
    get: (path) => request(app).get(`/console/api${path}`).set('Cookie', cookie),
    post: (path, body = {}) => request(app).post(`/console/api${path}`).set('Cookie', cookie).set('X-CSRF-Token', csrf).send(body),
  };
}

export async function anAnalyst(
  deps: Deps,
  app: App,
  tenantId: string,
  role: 'analyst' | 'admin' = 'analyst',
  mode: 'live' | 'test' = 'test',
): Promise<ConsoleClient> {
  const email = `analyst-${randomUUID().slice(0, 8)}@example.org`;
  const link = await addAnalyst(deps, { tenantId, email, role });
  const welcome = await request(app)
    .post('/console/api/welcome')
    .set('X-Forwarded-For', aClientIp())
    .send({ token: tokenOf(link.signInUrl), password: PASSWORD })
    .expect(200);
  const cookie = cookieOf(welcome);
  const me = await request(app).get('/console/api/me').set('Cookie', cookie).expect(200);
  const client = consoleClient(app, cookie, me.body.csrf_token, { email, analystId: link.analystId });
  if (mode === 'live') await client.post('/mode', { mode: 'live' }).expect(200);
  return client;
}
