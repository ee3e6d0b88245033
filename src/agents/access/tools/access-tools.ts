import type { Clock } from '../../../core/agent/define-agent.ts';
import type { AnyToolDefinition } from '../../../core/tools/index.ts';
import type { AccessApiClient } from '../client/access-api-client.ts';
import { CatalogLookup } from '../client/catalog-lookup.ts';
import { createGetUserAccessesTool } from './get-user-accesses.ts';
import { createGrantAccessTool } from './grant-access-to-user.ts';
import { createListAvailableAccessesTool } from './list-available-accesses.ts';
import { createRevokeTool } from './revoke-access-from-user.ts';

export interface AccessToolsOptions {
  readonly client: AccessApiClient;
  /**
   * Create a catalog account for a signed-in user the catalog does not know yet (embedded mode,
   * where every opsgate login is a catalog user). Default false: a remote catalog is authoritative
   * and an unknown user gets "User not found".
   */
  readonly provisionUsers?: boolean;
  /** Teams of an account created by `provisionUsers`. Default none. */
  readonly provisionTeams?: readonly string[];
  /** For the expiry shown on the approval panel. Default: the system clock. */
  readonly clock?: Clock;
}

/** The access tools of the spec, plus revoke, bound to one catalog service (one file per tool beside this one). */
export function createAccessTools(options: AccessToolsOptions): AnyToolDefinition[] {
  const { client } = options;
  const clock = options.clock ?? { now: () => new Date() };
  const lookup = new CatalogLookup(options);
  return [
    createListAvailableAccessesTool(lookup),
    createGetUserAccessesTool(lookup, client),
    createGrantAccessTool(lookup, client, clock),
    createRevokeTool(lookup),
  ];
}
