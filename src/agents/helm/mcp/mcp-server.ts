import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { OpsgateError } from '../../../core/errors/index.ts';
import { withCancellation } from '../backends/cli/cancellation.ts';
import { SIMULATION_NOTE } from '../backends/types.ts';
import type { HelmService, PlanRequest } from '../service/helm-service.ts';
import { HELM_TOOL_CATALOG } from './tool-catalog.ts';

type Handler = (input: Record<string, unknown>) => Promise<unknown>;

/** Labels every answer with the backend that produced it; the simulator's answers say so plainly. */
function label(service: HelmService, result: unknown): Record<string, unknown> {
  const body = result && typeof result === 'object' && !Array.isArray(result) ? (result as Record<string, unknown>) : { result };
  return service.backend.kind === 'simulated-cluster'
    ? { backend: 'simulated-cluster', note: SIMULATION_NOTE, ...body }
    : { backend: service.backend.kind, ...body };
}

function handlers(service: HelmService): Record<string, Handler> {
  const planRequest = (input: Record<string, unknown>, operation?: PlanRequest['operation']): PlanRequest => ({
    ...(input as unknown as PlanRequest),
    ...(operation ? { operation } : {}),
  });
  return {
    helm_search_charts: async ({ query }) => ({ charts: service.repository.search(String(query ?? '')) }),
    helm_get_chart_info: async ({ chart, version }) => service.chartInfo(String(chart), version as string | undefined),
    helm_list_chart_versions: async ({ chart }) => ({
      chart: service.repository.chartName(String(chart)),
      versions: service.repository.versions(String(chart)).map((v) => ({
        version: v.version,
        app_version: v.appVersion ?? '',
        kubeVersion: v.kubeVersion ?? null,
        created: v.created ?? null,
      })),
    }),
    kubernetes_get_cluster_info: async () => service.backend.clusterInfo(),
    kubernetes_list_namespaces: async () => ({ namespaces: await service.backend.listNamespaces() }),
    helm_list_releases: async ({ namespace, all }) => ({
      releases: await service.backend.listReleases({ ...(namespace ? { namespace: String(namespace) } : {}), all: all !== false }),
    }),
    helm_get_release_status: async ({ release, namespace }) => service.releaseStatus(String(release), String(namespace)),
    helm_validate_values: async (input) => {
      const { merged: _merged, ...result } = await service.validate(planRequest(input));
      return result;
    },
    kubernetes_check_prerequisites: async (input) => service.checkPrerequisites(input as { chart: string; namespace: string }),
    helm_get_installation_plan: async (input) => ({ plan: await service.plan(planRequest(input)) }),
    helm_monitor_deployment: async ({ release, namespace, timeoutSeconds }) =>
      service.monitor(String(release), String(namespace), { timeoutSeconds: Number(timeoutSeconds ?? 60) }),
    helm_install_chart: async (input) => service.execute(planRequest(input, 'install'), String(input.planHash)),
    helm_upgrade_release: async (input) => service.execute(planRequest(input, 'upgrade'), String(input.planHash)),
    helm_rollback_release: async (input) => service.execute(planRequest(input, 'rollback'), String(input.planHash)),
    helm_uninstall_release: async (input) => service.execute(planRequest(input, 'uninstall'), String(input.planHash)),
  };
}

/** How often a running tool call reports progress to a client that asked for it (a `progressToken`). */
const HELM_PROGRESS_INTERVAL_MS = 15_000;

/**
 * The Helm MCP server over one `HelmService`. Annotations (`readOnlyHint`, `destructiveHint`)
 * are hints for MCP clients; opsgate itself never trusts them. A call that runs long (a rollout
 * under `--wait`, hooks, the monitor) reports progress every `progressIntervalMs` so that the
 * client's silence limit never ends it while Helm works, and a cancelled call kills its `helm`.
 */
export function createHelmMcpServer(service: HelmService, options: { readonly progressIntervalMs?: number } = {}): McpServer {
  const server = new McpServer({ name: 'opsgate-helm', version: '0.1.0' }, { capabilities: { tools: {}, resources: {} } });
  const byName = handlers(service);
  for (const spec of HELM_TOOL_CATALOG) {
    const handler = byName[spec.name];
    if (!handler) throw new Error(`no handler for ${spec.name}`);
    server.registerTool(
      spec.name,
      {
        description: spec.description,
        inputSchema: spec.input,
        annotations: {
          readOnlyHint: spec.mutability === 'read-only',
          destructiveHint: spec.mutability === 'mutable' ? (spec.destructive ?? true) : false,
          openWorldHint: false,
        },
      },
      async (input: Record<string, unknown>, extra): Promise<CallToolResult> => {
        const token = extra._meta?.progressToken;
        let progress = 0;
        const heartbeat =
          token === undefined
            ? undefined
            : setInterval(() => {
                extra
                  .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress } })
                  .catch(() => {});
              }, options.progressIntervalMs ?? HELM_PROGRESS_INTERVAL_MS);
        try {
          const result = label(service, await withCancellation(extra.signal, () => handler(input)));
          return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
        } catch (error) {
          const body = OpsgateError.isInstance(error)
            ? { code: error.code, message: error.message, status: error.status, fields: error.fields }
            : { code: 'HELM_INTERNAL', message: error instanceof Error ? error.message : String(error), status: 500, fields: {} };
          return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: body }) }] };
        } finally {
          clearInterval(heartbeat);
        }
      },
    );
  }
  server.registerResource(
    'chart-file',
    new ResourceTemplate('helm://charts/{chart}/{version}/{file}', { list: undefined }),
    { description: 'A file of a chart version: Chart.yaml, values.yaml or values.schema.json.' },
    async (uri, variables) => {
      const info = await service.chartInfo(String(variables.chart), String(variables.version));
      const file = String(variables.file);
      const text =
        file === 'values.yaml'
          ? info.valuesYaml
          : file === 'values.schema.json'
            ? JSON.stringify(info.schema, null, 2)
            : file === 'Chart.yaml'
              ? JSON.stringify(info.chart, null, 2)
              : undefined;
      if (text === undefined) throw new Error(`unknown chart file ${file}; use Chart.yaml, values.yaml or values.schema.json`);
      return { contents: [{ uri: uri.href, mimeType: file.endsWith('.json') ? 'application/json' : 'text/yaml', text }] };
    },
  );
  server.registerResource(
    'release-manifest',
    new ResourceTemplate('helm://releases/{namespace}/{release}/manifest', { list: undefined }),
    { description: 'The rendered manifest of the current revision of a release, the values of its Secrets hidden.' },
    async (uri, variables) => {
      const manifest = await service.releaseManifest(String(variables.release), String(variables.namespace));
      return { contents: [{ uri: uri.href, mimeType: 'text/yaml', text: manifest }] };
    },
  );
  return server;
}
