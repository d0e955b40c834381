// Signup screening in an Express app: screen() inline before the account is created. `review`
// proceeds (be ready to revoke when the review.resolved webhook says denied), `block` stops with
// a generic message, and a Doorman that is slow or down fails open, marked, instead of breaking
// signups. At start-up, ping() checks the URL, the key and Doorman's stores before the app listens.
// Run it: DOORMAN_URL=http://localhost:8080 DOORMAN_SECRET_KEY=sk_test_… node --import tsx examples/signup-screening.ts
import express from 'express';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { doormanClient, type DoormanClient } from '@doorman/client';

export function signupApp(doorman: DoormanClient, createUser: (userId: string, email: string) => Promise<void>): express.Express {
  const app = express();
  // req.ip must be the end user's address: trust your own proxies (here: loopback) and only them.
  app.set('trust proxy', 'loopback');
  app.post('/signup', express.json(), async (req, res) => {
    const email = typeof req.body?.email === 'string' ? req.body.email : undefined;
    // Undefined only once the client has gone; a signup needs its ip (so do trial_start, checkout_attempt).
    if (!email || req.ip === undefined) return res.status(400).json({ error: 'An email address is required.' });
    const userId = `user_${randomUUID()}`;
    const result = await doorman.screen({
      event_type: 'signup',
      external_user_id: userId,
      email,
      ip: req.ip,
      user_agent: req.get('user-agent'),
      device_token: req.body.device_token,
    });
    if (result.failedOpen) console.warn('doorman failed open:', result.reason, result.error.message);
    else if (result.degraded.length > 0) console.warn('doorman decided without:', result.degraded.join(', '), 'event', result.id);
    if (result.verdict === 'block') return res.status(403).json({ error: 'We could not create your account.' });
    await createUser(userId, email); // `review` too: proceed, revoke if a human denies it
    return res.status(201).json({ user_id: userId });
  });
  return app;
}

async function main(): Promise<void> {
  const doorman = doormanClient({ secretKey: process.env.DOORMAN_SECRET_KEY ?? '', baseUrl: process.env.DOORMAN_URL ?? '' });
  const ping = await doorman.ping(); // throws on a wrong URL or key: fail the deploy, not every signup
  console.log(`doorman ${ping.status} (${ping.mode} mode) in ${ping.latencyMs} ms`);
  signupApp(doorman, async (userId, email) => console.log('created', userId, email)).listen(Number(process.env.PORT ?? 3001));
}

// Run as a program, not when a test imports signupApp.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
