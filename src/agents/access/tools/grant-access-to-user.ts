import { z } from 'zod';
import type { Clock } from '../../../core/agent/define-agent.ts';
import { type AnyToolDefinition, defineTool, type ToolContext, type ValidatorVerdict } from '../../../core/tools/index.ts';
import type { AccessApiClient } from '../client/access-api-client.ts';
import { type CatalogLookup, eligibleAccesses, isUserAccesses, userFields } from '../client/catalog-lookup.ts';
import { GRANTED_MESSAGE, toolMessage } from '../errors.ts';
import { assessGrantRisk } from '../risk.ts';
import { expiryFor, formatTimestamp } from '../service/time.ts';
import { grantFailure } from './failures.ts';

type GrantOutput =
  | {
      readonly success: true;
      readonly access: { readonly id: number; readonly name: string; readonly description: string };
      readonly message: string;
      readonly expires_at?: string | null;
    }
  | { readonly success: false; readonly message: string; readonly detail?: string };

interface GrantBody {
  id: number;
  name: string;
  description: string;
  renewal_period: number | null;
  expires_at?: string | null;
}

const grantInput = z.object({
  ...userFields,
  access_name: z
    .string()
    .trim()
    .min(1, toolMessage('ACCESS_TOOL_INVALID_ACCESS_NAME'))
    .max(100)
    .describe('Name of the access to grant, e.g. "READ_DOCUMENTS".'),
  reason: z.string().trim().min(1).max(500).optional().describe('Why the person needs it, in their words (recorded with the grant).'),
  duration_days: z
    .number()
    .int()
    .min(1)
    .max(3650)
    .optional()
    .describe('How many days the grant should last, when the person asked for less than the access allows (at most its renewal_period).'),
});
type GrantInput = z.infer<typeof grantInput>;

/** `grant_access_to_user`: one access of the user's teams, after the person's yes. Mutable: approved first, audited. */
export function createGrantAccessTool(lookup: CatalogLookup, client: AccessApiClient, clock: Clock): AnyToolDefinition {
  /** Own account only, and only an access of the user's teams within its maximum duration: refused before any approval. */
  async function validateGrant(input: GrantInput, context: ToolContext): Promise<ValidatorVerdict> {
    const own = await lookup.checkOwnUserId(input, context);
    if (own.verdict === 'block') return own;
    const [account, catalog] = await Promise.all([
      lookup.account(input.username, context.signal),
      lookup.catalog(undefined, context.signal),
    ]);
    if (!account.ok || !catalog.ok)
      return { verdict: 'allow', reason: 'eligibility could not be checked now; the catalog service enforces it' };
    const access = catalog.value.find((a) => a.name === input.access_name);
    if (!access) return { verdict: 'allow', reason: 'unknown access: the catalog will answer "Access not found"' };
    if (eligibleAccesses([access], account.value.teams).length === 0) {
      const nearest = eligibleAccesses(catalog.value, account.value.teams)
        .slice(0, 5)
        .map((a) => a.name)
        .join(', ');
      return {
        verdict: 'block',
        rule: 'team-eligibility',
        category: 'access',
        reason: `${access.name} is for the ${access.teams.join(', ') || 'no'} team(s); ${input.username} is in ${account.value.teams.join(', ') || 'no team'}. Eligible accesses include: ${nearest || 'none'}.`,
      };
    }
    if (input.duration_days !== undefined && access.renewal_period !== null && input.duration_days > access.renewal_period) {
      return {
        verdict: 'block',
        rule: 'max-duration',
        category: 'access',
        reason: `${access.name} lasts at most ${access.renewal_period} days; ask for ${access.renewal_period} or fewer (got ${input.duration_days}).`,
      };
    }
    return own;
  }

  return defineTool({
    name: 'grant_access_to_user',
    description:
      "Grant an access (by its catalog name, e.g. READ_DOCUMENTS) to the signed-in user. Only accesses of the user's teams (see get_user_accesses) can be granted. Needs the person's confirmation: propose it only after they asked for that exact access. Pass their reason, and duration_days when they want it for less than the access's renewal_period.",
    input: grantInput,
    mutability: 'mutable',
    identity: { username: 'username' },
    validate: validateGrant,
    assessRisk: (input, preview) => assessGrantRisk(input.access_name, preview, input.duration_days),
    async preview(input, context) {
      const catalog = await lookup.catalog(undefined, context.signal);
      const access = catalog.ok ? catalog.value.find((a) => a.name === input.access_name) : undefined;
      if (!access) {
        return {
          kind: 'access-grant',
          summary: catalog.ok
            ? `Grant ${input.access_name} to ${input.username}: there is no such access in the catalog; the grant will fail.`
            : `Grant ${input.access_name} to ${input.username} (the catalog could not be read: ${catalog.failure.message}).`,
          details: { access_name: input.access_name, username: input.username },
        };
      }
      const days = input.duration_days ?? access.renewal_period;
      const expiry = expiryFor(clock.now(), days);
      const term =
        days === null
          ? 'No renewal period: the grant does not expire.'
          : `${input.duration_days !== undefined ? `Asked for ${days} days (maximum ${access.renewal_period ?? 'none'})` : `Renewal period: ${days} days`} — if approved now, it expires on ${formatTimestamp(expiry!)} unless renewed.`;
      return {
        kind: 'access-grant',
        summary: `Grant ${access.name} to ${input.username}: ${access.description}. ${term}${input.reason ? ` Reason: ${input.reason}` : ''}`,
        headline: `${access.name} for ${input.username}, ${days === null ? 'no expiry' : `${days} days`}`,
        details: {
          access_name: access.name,
          description: access.description,
          renewal_period: access.renewal_period,
          duration_days: days,
          expires_at: expiry ? formatTimestamp(expiry) : null,
          teams: access.teams,
          username: input.username,
          reason: input.reason ?? null,
        },
      };
    },
    async execute(input, context): Promise<GrantOutput> {
      const account = await lookup.account(input.username, context.signal);
      if (!account.ok) return grantFailure(account.failure, input.access_name);
      const id = account.value.id;
      if (input.user_id !== undefined && input.user_id !== id) return { success: false, message: toolMessage('ACCESS_HTTP_FORBIDDEN') };
      const headers = { 'x-username': input.username };
      const body = {
        access_name: input.access_name,
        ...(input.reason !== undefined ? { reason: input.reason } : {}),
        ...(input.duration_days !== undefined ? { duration_days: input.duration_days } : {}),
      };
      const result = await client.post<GrantBody>(`/users/${id}/accesses`, headers, body, context.signal);
      if (result.ok) {
        const { id: accessId, name, description } = result.body;
        const expiresAt = result.body.expires_at ?? null;
        await context.audit('access_granted', {
          access_name: name,
          catalog_user_id: id,
          expires_at: expiresAt,
          reason: input.reason ?? null,
        });
        return { success: true, access: { id: accessId, name, description }, message: GRANTED_MESSAGE, expires_at: expiresAt };
      }
      const failure = result.failure;
      const outcomeUnknown =
        failure.kind === 'timeout' || (failure.kind === 'http' && (failure.status ?? 0) >= 500) || failure.kind === 'network';
      if (!outcomeUnknown) return grantFailure(failure, input.access_name);
      // The grant may have landed. Never resend blindly: read what the user holds first.
      const check = await client.get<unknown>(`/users/${id}/accesses`, headers, context.signal);
      if (check.ok && isUserAccesses(check.body)) {
        const held = check.body.accesses.find((a) => a.name === input.access_name);
        if (held) {
          await context.audit('access_granted', { access_name: held.name, catalog_user_id: id, confirmed_by_reread: true });
          return { success: true, access: { id: held.id, name: held.name, description: held.description }, message: GRANTED_MESSAGE };
        }
        return {
          ...grantFailure(failure, input.access_name),
          detail: `${failure.message}; the access was not granted (checked). Try again later.`,
        };
      }
      return {
        ...grantFailure(failure, input.access_name),
        detail: `${failure.message}; whether the grant landed is unknown. Check with get_user_accesses before trying again.`,
      };
    },
  });
}
