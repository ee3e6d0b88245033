import { randomBytes } from 'node:crypto';
import { defineAgent } from '../../core/agent/define-agent.ts';
import type { HelmBackend } from './backends/backend.ts';
import { HelmCli } from './backends/cli/helm-cli.ts';
import type { CommandRunner } from './backends/cli/run-command.ts';
import { helmSimulatorMigrations } from './backends/simulator/migration.ts';
import { SimulatedCluster } from './backends/simulator/simulated-cluster.ts';
import { openAgentRepository } from './charts/agent-repository.ts';
import { helmClustersMigration } from './clusters/cluster-migration.ts';
import { ClusterRegistry, type HelmCluster, registrationDigest } from './clusters/cluster-registry.ts';
import { HelmTargets } from './clusters/helm-targets.ts';
import { helmInterpreterRules } from './intents.ts';
import { HelmMcpClient } from './mcp/mcp-client.ts';
import { createHelmMcpServer } from './mcp/mcp-server.ts';
import { HelmApprovalHITLMiddleware } from './middleware/approval-hitl-middleware.ts';
import { ErrorRecoveryMiddleware } from './middleware/error-recovery-middleware.ts';
import { HelmAgentStateMiddleware } from './middleware/state-middleware.ts';
import { DISCOVERY_SUBAGENT_PROMPT, HELM_MGMT_SUPERVISOR_PROMPT, PLANNER_SUBAGENT_PROMPT, QUERY_SUBAGENT_PROMPT } from './prompt.ts';
import { maxTimeoutFrom } from './service/change-timeout.ts';
import { HelmService } from './service/helm-service.ts';
import { SecretRedactor } from './service/redact-secrets.ts';
import { createHelmTools } from './tools/helm-tools.ts';
import { classifyHelmRequest } from './workflow/route.ts';

export { helmClustersMigration } from './clusters/cluster-migration.ts';
export { ClusterRegistry, type HelmCluster } from './clusters/cluster-registry.ts';

/** The secret-store name of the key that digests hidden Secret data in plans. */
const REDACTION_KEY_SECRET = 'helm-plan-redaction-key';

const HELM_PHASE_DEFINITIONS = [
  { name: 'discovery', title: 'Discovery & context' },
  { name: 'values_confirmation', title: 'Values confirmation', gate: 'question' },
  { name: 'planning', title: 'Planning & validation' },
  { name: 'approval', title: 'Plan approval', gate: 'approval' },
  { name: 'execution', title: 'Execution & verification' },
] as const;

/**
 * The Helm agent. Options (`agentOptions.helm`): `backend` = `simulator` (default; the built-in
 * simulated cluster in the opsgate store) or `cli` (real `helm` 3 or 4 and `kubectl`); `charts` = a
 * chart repository folder of opsgate's own (default: the demo repository with the simulator, none with `cli`:
 * then charts are named `REPO/NAME` or `oci://…`); `maxTimeoutSeconds` (or
 * `OPSGATE_HELM_MAX_TIMEOUT_SECONDS`, default 1800) = the longest Helm `--timeout` a requester may
 * ask for; for the CLI backend `kubeContext`, `kubeconfig`, and
 * `helmPath` / `kubectlPath` (or `OPSGATE_HELM_PATH` / `OPSGATE_KUBECTL_PATH`; default: found on PATH),
 * and `keyring` (or `OPSGATE_HELM_KEYRING`) = a public keyring every chart's `.prov` must verify against.
 * Tools reach the Helm MCP server through a real MCP client (in-process transport).
 * `createHelmAgent({ run })` runs the CLI backend's commands through another runner (tests
 * answer them in-process); `helmAgent` runs real processes.
 */
export function createHelmAgent(overrides: { readonly run?: CommandRunner } = {}) {
  return defineAgent({
    name: 'helm',
    title: 'Helm',
    description: 'Install, upgrade, roll back and inspect Helm releases — with values confirmation, a plan you approve, and verification.',
    instructions: HELM_MGMT_SUPERVISOR_PROMPT,
    migrations: [...helmSimulatorMigrations, helmClustersMigration],
    async setup(context) {
      const backendName = context.options.backend ?? context.env.OPSGATE_HELM_BACKEND ?? 'simulator';
      if (backendName !== 'simulator' && backendName !== 'cli')
        throw new Error(`helm backend must be "simulator" or "cli", got "${backendName}"`);
      const helmPath = context.options.helmPath ?? context.env.OPSGATE_HELM_PATH;
      const maxTimeoutSeconds = maxTimeoutFrom(context.options.maxTimeoutSeconds ?? context.env.OPSGATE_HELM_MAX_TIMEOUT_SECONDS);
      const kubectlPath = context.options.kubectlPath ?? context.env.OPSGATE_KUBECTL_PATH;
      const keyring = context.options.keyring ?? context.env.OPSGATE_HELM_KEYRING;
      const cli = (target: { kubeContext?: string; kubeconfig?: string }) =>
        new HelmCli({
          ...(target.kubeContext ? { kubeContext: target.kubeContext } : {}),
          ...(target.kubeconfig ? { kubeconfig: target.kubeconfig } : {}),
          ...(helmPath ? { helmPath } : {}),
          ...(kubectlPath ? { kubectlPath } : {}),
          ...(keyring ? { keyring } : {}),
          ...(overrides.run ? { run: overrides.run } : {}),
        });
      const backend: HelmBackend =
        backendName === 'cli'
          ? cli({
              ...(context.options.kubeContext ? { kubeContext: context.options.kubeContext } : {}),
              ...(context.options.kubeconfig ? { kubeconfig: context.options.kubeconfig } : {}),
            })
          : new SimulatedCluster(context.store, context.clock);
      const repository = await openAgentRepository(backendName, context.options.charts);
      // The key of the digests that stand in for hidden secrets: in the secret store, so every replica hashes plans alike.
      let redactionKey = await context.secrets.get(REDACTION_KEY_SECRET);
      if (!redactionKey) {
        redactionKey = randomBytes(32).toString('base64');
        await context.secrets.set(REDACTION_KEY_SECRET, redactionKey);
      }
      const redactor = new SecretRedactor(redactionKey);
      const registrationKey = redactionKey;
      const client = await HelmMcpClient.inProcess(
        createHelmMcpServer(new HelmService(backend, repository, { redactor, maxTimeoutSeconds })),
      );
      // A registered cluster gets its own backend (the CLI with its context and kubeconfig; the
      // simulator has one cluster, shared) and its own service, which names it in every plan.
      const openCluster = (cluster: HelmCluster) =>
        HelmMcpClient.inProcess(
          createHelmMcpServer(
            new HelmService(backendName === 'cli' ? cli(cluster) : backend, repository, {
              cluster: { name: cluster.name, environment: cluster.environment, registration: registrationDigest(cluster, registrationKey) },
              redactor,
              maxTimeoutSeconds,
            }),
          ),
        );
      const targets = new HelmTargets(new ClusterRegistry(context.store, context.clock), client, openCluster);
      await targets.refresh();
      context.logger.info(
        { backend: backend.kind },
        backend.kind === 'simulated-cluster' ? 'helm agent uses the SIMULATED cluster' : 'helm agent uses helm/kubectl',
      );
      return {
        tools: createHelmTools(targets),
        workflow: { phases: HELM_PHASE_DEFINITIONS },
        interpreter: helmInterpreterRules,
        route: (input) => classifyHelmRequest(input),
        middleware: [new HelmApprovalHITLMiddleware(), new HelmAgentStateMiddleware(), new ErrorRecoveryMiddleware()],
        // ErrorRecoveryMiddleware is the spec's retry for read-only tools; the core's would retry again.
        retryReadOnlyTools: false,
        ...(backend.kind === 'simulated-cluster'
          ? { notice: 'SIMULATED cluster: releases, revisions and pods live in the opsgate store, not on a real Kubernetes cluster.' }
          : {}),
        instructionsFor: (session) =>
          [
            session.route === 'query'
              ? QUERY_SUBAGENT_PROMPT
              : session.phase === 'discovery' || session.phase === 'values_confirmation'
                ? DISCOVERY_SUBAGENT_PROMPT
                : PLANNER_SUBAGENT_PROMPT,
            backend.kind === 'simulated-cluster'
              ? 'Backend: SIMULATED cluster (no real Kubernetes). Say so when you report results.'
              : 'Backend: helm/kubectl on a real cluster.',
            targets.describe(),
          ]
            .filter((part) => part !== undefined)
            .join('\n\n'),
        close: () => targets.close(),
      };
    },
  });
}

export const helmAgent = createHelmAgent();
