// `doorman review list|resolve` and `doorman webhook set|show|disable|deliveries|redeliver`
// (README, "The ops CLI"). CLI code only: the work is in the use cases, which the analyst
// console calls too, loaded when a command runs.
import os from 'node:os';
import { Option, type Command } from 'commander';
import type { DeliveryStatus } from '../webhooks/webhook-store.js';
import { scopeOf, scoped, type CliKit, type ScopeOptions } from './cli-kit.js';

export function addReviewAndWebhookCommands(program: Command, { print, withDeps }: CliKit): void {
  const review = program.command('review').description('the review queue');
  scoped(review.command('list').description('pending reviews, oldest first'))
    .option('--limit <n>', 'at most this many', '100')
    .action(
      withDeps(['db'], async (deps, opts: ScopeOptions & { limit: string }) => {
        const { listPendingReviews } = await import('../reviews/review-store.js');
        const reviews = await listPendingReviews(
          deps.db,
          await scopeOf(deps, opts),
          Math.min(1000, Math.max(1, Number(opts.limit) || 100)),
        );
        const now = Date.now();
        print(
          {
            reviews: reviews.map((r) => ({
              event_id: r.eventId,
              event_type: r.eventType,
              reasons: r.reasons,
              created_at: r.createdAt.toISOString(),
              ...(r.externalUserId !== undefined && { external_user_id: r.externalUserId }),
              ...(r.email !== undefined && { email: r.email }),
              policy_version: r.policyVersion,
              age_seconds: Math.round((now - r.createdAt.getTime()) / 1000),
            })),
          },
          reviews.length === 0
            ? 'No pending reviews.'
            : reviews
                .map(
                  (r) =>
                    `${r.createdAt.toISOString()}  ${r.eventId}  ${r.eventType.padEnd(16)} ${r.reasons.map((x) => x.code).join(', ')}${r.externalUserId ? `  user ${r.externalUserId}` : ''}`,
                )
                .join('\n'),
        );
      }),
    );
  scoped(review.command('resolve <event_id>').description('resolve a review once; queues the signed review.resolved webhook'))
    .addOption(new Option('--resolution <resolution>', 'the decision').choices(['approved', 'denied']).makeOptionMandatory())
    .option('--note <text>', 'why (stored with the resolution)')
    .option('--by <who>', 'who resolved it (default: the OS user)')
    .action(
      withDeps(
        ['db', 'boss', 'clock', 'graphOutbox'],
        async (deps, eventId: string, opts: ScopeOptions & { resolution: 'approved' | 'denied'; note?: string; by?: string }) => {
          const { resolveReview } = await import('../reviews/resolve-review.js');
          const resolved = await resolveReview(deps, await scopeOf(deps, opts), {
            eventId,
            resolution: opts.resolution,
            note: opts.note,
            resolvedBy: opts.by ?? os.userInfo().username,
          });
          print(
            {
              ok: true,
              final_verdict: resolved.finalVerdict,
              resolved_at: resolved.resolvedAt.toISOString(),
              delivery_id: resolved.deliveryId,
            },
            `Resolved ${eventId}: ${opts.resolution}, final verdict ${resolved.finalVerdict}; webhook delivery ${resolved.deliveryId} queued.`,
          );
        },
      ),
    );

  const webhook = program.command('webhook').description('the review.resolved webhook');
  scoped(
    webhook
      .command('set')
      .description("set the mode's endpoint and make a fresh signing secret (the previous one stays valid for the overlap)"),
  )
    .requiredOption('--url <url>', 'http(s) URL of the receiver')
    .option(
      '--revoke-previous',
      'the previous secrets stop signing at once (a leaked secret); pending deliveries are signed with the new one only',
    )
    .action(
      withDeps(['db', 'boss', 'vault'], async (deps, opts: ScopeOptions & { url: string; revokePrevious?: boolean }) => {
        const { setWebhook } = await import('../webhooks/manage-webhooks.js');
        const { url, secret } = await setWebhook(deps, await scopeOf(deps, opts), opts.url, {
          revokePrevious: opts.revokePrevious === true,
        });
        print(
          { url, secret },
          `Webhook for ${opts.mode} set to ${url}. Signing secret (shown once): ${secret}${opts.revokePrevious ? ' (previous secrets revoked)' : ''}`,
        );
      }),
    );
  scoped(webhook.command('show').description('the endpoint and its secrets (ids and ages, never the secrets)')).action(
    withDeps(['db'], async (deps, opts: ScopeOptions) => {
      const { showWebhook } = await import('../webhooks/manage-webhooks.js');
      const shown = await showWebhook(deps, await scopeOf(deps, opts));
      print(
        shown,
        [
          `${shown.url} (${shown.enabled ? 'enabled' : 'disabled'})`,
          ...shown.secrets.map(
            (s) => `  secret ${s.id} created ${s.created_at}${s.valid_until ? `, valid until ${s.valid_until}` : ' (current)'}`,
          ),
        ].join('\n'),
      );
    }),
  );
  scoped(webhook.command('disable').description('stop deliveries for the mode (pending ones wait)')).action(
    withDeps(['db'], async (deps, opts: ScopeOptions) => {
      const { disableWebhook } = await import('../webhooks/manage-webhooks.js');
      await disableWebhook(deps, await scopeOf(deps, opts));
      print({ ok: true }, `Webhook deliveries for ${opts.mode} stopped; pending ones wait until an endpoint is set again.`);
    }),
  );
  scoped(webhook.command('deliveries').description('deliveries, newest first'))
    .addOption(new Option('--status <status>', 'only these').choices(['pending', 'delivered', 'failed']))
    .option('--limit <n>', 'at most this many', '100')
    .action(
      withDeps(['db'], async (deps, opts: ScopeOptions & { status?: DeliveryStatus; limit: string }) => {
        const { webhookDeliveries } = await import('../webhooks/manage-webhooks.js');
        const deliveries = await webhookDeliveries(
          deps,
          await scopeOf(deps, opts),
          opts.status,
          Math.min(1000, Math.max(1, Number(opts.limit) || 100)),
        );
        print(
          { deliveries },
          deliveries.length === 0
            ? 'No deliveries.'
            : deliveries
                .map(
                  (d) =>
                    `${d.created_at}  ${d.delivery_id}  ${d.event_id}  ${d.status.padEnd(9)} attempts ${d.attempts}${d.last_status_code ? `  last ${d.last_status_code}` : ''}${d.last_error ? `  ${d.last_error}` : ''}`,
                )
                .join('\n'),
        );
      }),
    );
  scoped(webhook.command('redeliver <delivery_id>').description('send the same bytes again')).action(
    withDeps(['db', 'boss', 'vault'], async (deps, deliveryId: string, opts: ScopeOptions) => {
      const { redeliver } = await import('../webhooks/manage-webhooks.js');
      await redeliver(deps, await scopeOf(deps, opts), deliveryId);
      print({ ok: true, delivery_id: deliveryId }, `Delivery ${deliveryId} queued again.`);
    }),
  );
}
