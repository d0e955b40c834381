// `doorman analyst add|link|remove|list` (README, "The ops CLI"): analyst accounts for the console.
// CLI code only: the work is in src/console/auth/manage-analysts.ts, loaded when a command runs.
import { Option, type Command } from 'commander';
import type { Role } from '../roles.js';
import type { CliKit } from './cli-kit.js';

const manage = () => import('../console/auth/manage-analysts.js');

// A link is tagged under the master key (src/console/auth/link-tokens.ts): without it, a new
// analyst's first use would count against a client address that others may have spent.
const linkOptions = { needsSecretsKey: true };

const linkText = async (email: string, url: string) =>
  `Sign-in link for ${email} (one-time, valid ${(await manage()).SIGN_IN_LINK_HOURS} h; it sets the password):\n  ${url}`;

export function addAnalystCommands(program: Command, { print, withDeps }: CliKit): void {
  const analyst = program.command('analyst').description('analyst accounts for the console (/console)');
  analyst
    .command('add')
    .description('create an analyst account and print its one-time sign-in link')
    .requiredOption('--tenant <id>', 'tenant id')
    .requiredOption('--email <email>', "the analyst's email address (one account per address)")
    .addOption(
      new Option('--role <role>', 'admin also reads the audit log and redelivers webhooks')
        .choices(['analyst', 'admin'])
        .makeOptionMandatory(),
    )
    .action(
      withDeps(
        ['db', 'clock'],
        async (deps, opts: { tenant: string; email: string; role: Role }) => {
          const link = await (await manage()).addAnalyst(deps, { tenantId: opts.tenant, email: opts.email, role: opts.role });
          print(
            { analyst_id: link.analystId, sign_in_url: link.signInUrl, expires_at: link.expiresAt.toISOString() },
            await linkText(opts.email, link.signInUrl),
          );
        },
        linkOptions,
      ),
    );
  analyst
    .command('link')
    .description('a fresh one-time sign-in link for an existing account (a forgotten password)')
    .requiredOption('--tenant <id>', 'tenant id')
    .requiredOption('--email <email>', "the analyst's email address")
    .action(
      withDeps(
        ['db', 'clock'],
        async (deps, opts: { tenant: string; email: string }) => {
          const link = await (await manage()).newSignInLink(deps, { tenantId: opts.tenant, email: opts.email });
          print(
            { analyst_id: link.analystId, sign_in_url: link.signInUrl, expires_at: link.expiresAt.toISOString() },
            await linkText(opts.email, link.signInUrl),
          );
        },
        linkOptions,
      ),
    );
  analyst
    .command('remove')
    .description('remove an analyst account; its sessions end at once')
    .requiredOption('--tenant <id>', 'tenant id')
    .requiredOption('--email <email>', "the analyst's email address")
    .action(
      withDeps(['db', 'clock'], async (deps, opts: { tenant: string; email: string }) => {
        await (await manage()).removeAnalyst(deps, { tenantId: opts.tenant, email: opts.email });
        print({ ok: true }, `Removed ${opts.email}; their sessions have ended.`);
      }),
    );
  analyst
    .command('list')
    .description("the tenant's analyst accounts")
    .requiredOption('--tenant <id>', 'tenant id')
    .action(
      withDeps(['db', 'clock'], async (deps, opts: { tenant: string }) => {
        const analysts = await (await manage()).tenantAnalysts(deps, opts.tenant);
        print(
          {
            analysts: analysts.map((a) => ({
              analyst_id: a.id,
              email: a.email,
              role: a.role,
              mode: a.mode,
              password_set: a.hasPassword,
              created_at: a.createdAt.toISOString(),
              last_seen_at: a.lastSeenAt?.toISOString() ?? null,
            })),
          },
          analysts.length === 0
            ? 'No analysts yet: doorman analyst add --tenant ID --email E --role admin'
            : analysts
                .map(
                  (a) =>
                    `${a.email.padEnd(32)} ${a.role.padEnd(8)} ${a.hasPassword ? (a.lastSeenAt ? `last seen ${a.lastSeenAt.toISOString()}` : 'signed up') : 'link not used yet'}`,
                )
                .join('\n'),
        );
      }),
    );
}
