// Reading stored events and reporting outcomes: bind your user id to an event screened before the
// account existed, page through the reviews, read one event, and report a chargeback (a repost of
// the same report is deduplicated, and says so).
// Run it: DOORMAN_URL=http://localhost:8080 DOORMAN_SECRET_KEY=sk_test_… node --import tsx examples/events-and-feedback.ts evt_… user_42
import { pathToFileURL } from 'node:url';
import { doormanClient, DoormanError, type DoormanClient, type FeedbackReceipt, type StoredEvent } from '@doorman/client';

export async function afterSignup(
  doorman: DoormanClient,
  eventId: string,
  userId: string,
): Promise<{ event: StoredEvent; receipt: FeedbackReceipt; reviews: string[] }> {
  await doorman.events.attachUser(eventId, userId); // write-once: the same id again is fine, another is 409 `conflict`
  const event = await doorman.events.get(eventId); // another tenant's or mode's id: 404 `not_found`
  const reviews: string[] = [];
  for await (const e of doorman.events.list({ verdict: 'review', limit: 100 })) {
    if (e.review?.status === 'pending') reviews.push(e.id);
    if (reviews.length >= 10) break; // leaving the loop stops the paging
  }
  const receipt = await doorman.feedback.report({
    subject: { kind: 'external_user_id', value: userId },
    outcome: 'chargeback',
    note: 'dispute dp_123',
  });
  if (receipt.duplicate) console.log('already reported: nothing new stored');
  return { event, receipt, reviews };
}

async function main(): Promise<void> {
  const doorman = doormanClient({ secretKey: process.env.DOORMAN_SECRET_KEY ?? '', baseUrl: process.env.DOORMAN_URL ?? '' });
  const [eventId = '', userId = ''] = process.argv.slice(2);
  await afterSignup(doorman, eventId, userId).then(console.log, (err: unknown) => {
    if (!(err instanceof DoormanError)) throw err;
    console.error(err.kind, err.status, err.code, err.message); // e.g. response 404 not_found
  });
}

// Run as a program, not when a test imports afterSignup.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
