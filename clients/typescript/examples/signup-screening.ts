// Signup screening in an Express app: screen() inline before the account is created. `review`
// proceeds (be ready to revoke when the review.resolved webhook says denied), `block` stops with
// a generic message, and a Doorman that is slow or down fails open, marked, instead of breaking
// signups. Run it: DOORMAN_URL=http://localhost:8080 DOORMAN_SECRET_KEY=sk_test_… node --import tsx examples/signup-screening.ts
import express from 'express';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { doormanClient } from '@doorman/client';
import type { DoormanClient } from '@doorman/client';

export function signupApp(doorman: DoormanClient, createUser: (userId: string, email: string) => Promise<void>): express.Express {
  const app = express();
  // req.ip must be the end user's address: trust your own proxies (here: loopback) and only them.
  app.set('trust proxy', 'loopback');
  app.post('/signup', express.json(), async (req, res) => {
    const userId = `user_${randomUUID()}`;
    const result = await doorman.screen({
      event_type: 'signup', external_user_id: userId, email: req.body.email,
      ip: req.ip!, user_agent: req.get('user-agent'), device_token: req.body.device_token,
    });
    if (result.failedOpen) console.warn('doorman failed open:', result.reason, result.error.message);
    if (result.verdict === 'block') return res.status(403).json({ error: 'We could not create your account.' });
    await createUser(userId, req.body.email); // `review` too: proceed, revoke if a human denies it
    res.status(201).json({ user_id: userId });
  });
  return app;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const doorman = doormanClient({ secretKey: process.env.DOORMAN_SECRET_KEY ?? '', baseUrl: process.env.DOORMAN_URL ?? '' });
  signupApp(doorman, async (userId, email) => console.log('created', userId, email)).listen(Number(process.env.PORT ?? 3001));
}
