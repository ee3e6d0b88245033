import { defineAgent } from '../../core/agent/define-agent.ts';
import { AccessApiClient } from './client/access-api-client.ts';
import { accessInterpreter } from './intents.ts';
import { ACCESS_INSTRUCTIONS } from './prompt.ts';
import { startAccessBackend } from './service/embedded-service.ts';
import { accessCatalogMigrations } from './service/index.ts';
import { createAccessTools } from './tools/access-tools.ts';

/** The access agent: the catalog tools of docs/agents/access.md behind the guarded runtime. */
export const accessAgent = defineAgent({
  name: 'access',
  title: 'Access requests',
  description: 'Finds the access you need in the catalog, checks what you hold, and grants it once you confirm.',
  instructions: ACCESS_INSTRUCTIONS,
  migrations: [...accessCatalogMigrations],
  async setup(context) {
    const backend = await startAccessBackend(context);
    const client = new AccessApiClient({ baseUrl: backend.baseUrl, adminKey: backend.adminKey });
    return {
      tools: createAccessTools({
        client,
        clock: context.clock,
        provisionUsers: backend.mode === 'embedded',
        provisionTeams: backend.provisionTeams,
      }),
      interpreter: accessInterpreter,
      close: () => backend.close(),
    };
  },
});
