import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from '../../../core/tools/index.ts';
import type { CatalogLookup, ListedAccess } from '../client/catalog-lookup.ts';

type ListAccessesOutput = ListedAccess[] | { readonly accesses: []; readonly error: string };

/** `list_available_accesses`: the catalog, or one team's part of it. Read-only. */
export function createListAvailableAccessesTool(lookup: CatalogLookup): AnyToolDefinition {
  return defineTool({
    name: 'list_available_accesses',
    description:
      'Retrieve all available accesses from the access catalog: id, name, description, renewal_period (days) and team tags. Pass team (e.g. "engineering") to list only that team\'s accesses.',
    input: z.object({ team: z.string().min(1).max(40).optional().describe('Only accesses tagged with this team.') }),
    mutability: 'read-only',
    async execute(input, context): Promise<ListAccessesOutput> {
      const result = await lookup.catalog(input.team?.toLowerCase(), context.signal);
      if (result.ok) return result.value;
      context.logger.warn(
        { tool: 'list_available_accesses', kind: result.failure.kind, status: result.failure.status },
        'access catalog call failed',
      );
      return { accesses: [], error: result.failure.message };
    },
  });
}
