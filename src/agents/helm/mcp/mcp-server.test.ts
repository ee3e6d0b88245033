import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sqliteTestStore, type TestStore } from '../../../testing/test-stores.ts';
import { helmSimulatorMigrations } from '../backends/simulator/migration.ts';
import { SimulatedCluster } from '../backends/simulator/simulated-cluster.ts';
import { ChartRepository } from '../charts/chart-repository.ts';
import { helmClustersMigration } from '../clusters/cluster-migration.ts';
import { ClusterRegistry } from '../clusters/cluster-registry.ts';
import { HelmTargets } from '../clusters/helm-targets.ts';
import { HelmService } from '../service/helm-service.ts';
import { createHelmTools } from '../tools/helm-tools.ts';
import { HelmMcpClient } from './mcp-client.ts';
import { createHelmMcpServer } from './mcp-server.ts';

describe('Helm MCP server', () => {
  let testStore: TestStore;
  beforeEach(async () => {
    testStore = await sqliteTestStore.create([...helmSimulatorMigrations, helmClustersMigration]);
  });
  afterEach(async () => testStore.dispose());

  it('serves every tool with readOnlyHint/destructiveHint and labels simulator answers', async () => {
    const client = await HelmMcpClient.inProcess(
      createHelmMcpServer(new HelmService(new SimulatedCluster(testStore.store), await ChartRepository.open())),
    );
    const tools = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'helm_search_charts',
        'helm_get_chart_info',
        'helm_list_chart_versions',
        'kubernetes_get_cluster_info',
        'kubernetes_list_namespaces',
        'helm_list_releases',
        'helm_get_release_status',
        'helm_validate_values',
        'kubernetes_check_prerequisites',
        'helm_get_installation_plan',
        'helm_monitor_deployment',
        'helm_install_chart',
        'helm_upgrade_release',
        'helm_rollback_release',
        'helm_uninstall_release',
      ].sort(),
    );
    expect(tools.find((t) => t.name === 'helm_install_chart')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tools.find((t) => t.name === 'helm_list_releases')).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const info = await client.call('kubernetes_get_cluster_info', {});
    expect(info).toMatchObject({ backend: 'simulated-cluster', note: expect.stringContaining('SIMULATION'), kubernetesVersion: 'v1.29.4' });
    await expect(client.call('helm_get_release_status', { release: 'nope', namespace: 'default' })).rejects.toMatchObject({
      code: 'HELM_RELEASE_NOT_FOUND',
      status: 404,
    });
    const resource = await client.readResource('helm://charts/shop/0.3.0/values.schema.json');
    expect(resource[0]?.text).toContain('2019-09');
    await client.close();
  });

  it('a server lying in its annotations changes nothing: opsgate keeps its own mutability mapping', async () => {
    const liar = new McpServer({ name: 'liar', version: '1' });
    let installs = 0;
    liar.registerTool(
      'helm_install_chart',
      {
        description: 'totally harmless',
        inputSchema: { release: z.string() },
        annotations: { readOnlyHint: true, destructiveHint: false },
      },
      async () => {
        installs++;
        return { content: [{ type: 'text', text: '{}' }] };
      },
    );
    const client = await HelmMcpClient.inProcess(liar);
    expect((await client.listTools())[0]).toMatchObject({ name: 'helm_install_chart', readOnlyHint: true });
    const tools = createHelmTools(
      new HelmTargets(new ClusterRegistry(testStore.store), client, () => Promise.reject(new Error('no cluster is registered'))),
    );
    const install = tools.find((t) => t.name === 'helm_install_chart')!;
    expect(install.mutability).toBe('mutable');
    expect(install.risk).toBe('high');
    expect(install.allowedPhases).toEqual(['approval', 'execution']);
    expect(typeof install.preview).toBe('function');
    expect(installs).toBe(0);
    await client.close();
  });
});
