// Use cases behind `doorman analyst add|link|remove|list`: analyst accounts per tenant, made by
// an operator, each signing in first through a one-time link (valid 24 h) that sets a password.
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import type { ConsoleAuthDeps } from './console-auth-deps.js';
import { newId } from '../../db/new-id.js';
import { AppError } from '../../errors.js';
import { tenantExists } from '../../tenants/key-store.js';
import { linkTokens } from './link-tokens.js';
import { inTransaction } from '../../db/queryable.js';
import {
  deleteAnalyst,
  findAnalystByEmail,
  insertAnalyst,
  insertSignInLink,
  listAnalysts,
  voidSignInLinks,
  type Analyst,
} from './analyst-store.js';
import type { Role } from '../../roles.js';

export const SIGN_IN_LINK_HOURS = 24;
const EMAIL = /^[^\s@]{1,200}@[^\s@]{1,200}$/;

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
export const newToken = (): string => randomBytes(32).toString('base64url');

type ManageDeps = Pick<ConsoleAuthDeps, 'db' | 'clock'> & { config: Pick<Config, 'publicUrl' | 'secretsKeys'> };

export interface SignInLink {
  analystId: string;
  signInUrl: string;
  expiresAt: Date;
}

async function requireTenant(deps: ManageDeps, tenantId: string): Promise<void> {
  if (!(await tenantExists(deps.db, tenantId))) throw new AppError('not_found', `No tenant ${tenantId}.`);
}

// The token travels in the URL's fragment, which browsers never send to a server: it stays out
// of access logs, proxies and Referer headers. The welcome page reads it and posts it once.
// A new link voids the account's earlier unused ones: only the latest link opens the account. Its
// token carries our tag (link-tokens.ts), by which the door knows it from a guess.
async function issueLink(deps: ManageDeps, analystId: string): Promise<SignInLink> {
  const token = linkTokens(deps.config.secretsKeys).issue();
  const expiresAt = new Date(deps.clock.now().getTime() + SIGN_IN_LINK_HOURS * 3_600_000);
  await inTransaction(deps.db, async (tx) => {
    await voidSignInLinks(tx, analystId);
    await insertSignInLink(tx, { tokenHash: hashToken(token), analystId, expiresAt });
  });
  return { analystId, signInUrl: `${deps.config.publicUrl}/console/welcome#token=${token}`, expiresAt };
}

export async function addAnalyst(deps: ManageDeps, input: { tenantId: string; email: string; role: Role }): Promise<SignInLink> {
  const email = input.email.trim();
  if (!EMAIL.test(email)) throw AppError.invalid([{ path: 'email', message: 'must be an email address' }]);
  await requireTenant(deps, input.tenantId);
  const id = newId('ana');
  if (!(await insertAnalyst(deps.db, { id, tenantId: input.tenantId, email, role: input.role }))) {
    throw new AppError(
      'conflict',
      `${email} already has an analyst account on this Doorman (one account per address); use \`doorman analyst link\` for a new sign-in link.`,
    );
  }
  return issueLink(deps, id);
}

// A fresh one-time link for an existing account (a forgotten password); earlier unused links
// stop working.
export async function newSignInLink(deps: ManageDeps, input: { tenantId: string; email: string }): Promise<SignInLink> {
  await requireTenant(deps, input.tenantId);
  const analyst = await findAnalystByEmail(deps.db, input.email.trim());
  if (!analyst || analyst.tenantId !== input.tenantId)
    throw new AppError('not_found', `No analyst ${input.email} in tenant ${input.tenantId}.`);
  return issueLink(deps, analyst.id);
}

export async function removeAnalyst(deps: ManageDeps, input: { tenantId: string; email: string }): Promise<void> {
  await requireTenant(deps, input.tenantId);
  if (!(await deleteAnalyst(deps.db, input.tenantId, input.email.trim()))) {
    throw new AppError('not_found', `No analyst ${input.email} in tenant ${input.tenantId}.`);
  }
}

export async function tenantAnalysts(deps: ManageDeps, tenantId: string): Promise<(Analyst & { lastSeenAt: Date | null })[]> {
  await requireTenant(deps, tenantId);
  return listAnalysts(deps.db, tenantId);
}
