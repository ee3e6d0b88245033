import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmAgent } from '../../src/agents/helm/index.ts';
import { AuditLog } from '../../src/core/audit/index.ts';
import type { Identity } from '../../src/core/identity/index.ts';
import { DEFAULT_POLICY_DIR } from '../../src/core/policy/index.ts';
import { createRuntime, type Runtime } from '../../src/core/runtime/index.ts';
import { sqliteTestStore, type TestStore } from '../../src/testing/test-stores.ts';

// HELM-4.2: the helm agent's own safety net holds when the core gate is misconfigured. Here a
// policy lets every call run at once, so only HelmApprovalHITLMiddleware stands between a mutable
// call and the cluster: unwiring it from the agent, or weakening its check, turns this red.
const alice: Identity = { userId: 1, username: 'alice', roles: ['user'], channel: 'web' };

describe('HELM-4.2 the safety net under a policy that lets every call run', () => {
  let testStore: TestStore;
  let runtime: Runtime;
  let policyDir: string;
  beforeAll(async () => {
    policyDir = mkdtempSync(join(tmpdir(), 'opsgate-policy-'));
    cpSync(DEFAULT_POLICY_DIR, policyDir, { recursive: true });
    writeFileSync(
      join(policyDir, 'misconfigured.cedar'),
      '@id("everything-runs")\npermit (principal, action == Opsgate::Action::"run", resource);\n',
    );
    testStore = await sqliteTestStore.create();
    runtime = await createRuntime({
      store: testStore.store,
      agents: [helmAgent],
      agentOptions: { helm: { backend: 'simulator' } },
      policyDir,
    });
  });
  afterAll(async () => {
    await runtime?.close();
    await testStore?.dispose();
    rmSync(policyDir, { recursive: true, force: true });
  });

  it('HELM-4.2 a mutable helm call the policy let run without an approval is refused and installs nothing', async () => {
    const { id } = await runtime.startSession({ agent: 'helm', identity: alice });
    const gate1 = await runtime.send(id, 'install webapp as web', alice);
    const after = gate1.interrupt
      ? await runtime.decide(id, { type: 'answer', callId: gate1.interrupt.callId, answer: 'yes' }, alice)
      : gate1;
    const install = after.session.toolCalls.find((call) => call.tool === 'helm_install_chart');
    expect(install).toMatchObject({ status: 'failed', error: expect.stringContaining('arrived without an approval') });
    const listed = await runtime.callTool(id, { tool: 'helm_list_releases', args: { namespace: 'default' } }, alice);
    const releases = listed.messages.at(-1)?.toolResult?.output;
    expect(releases).toBeDefined();
    expect(JSON.stringify(releases)).not.toContain('"web"');
    const events = await new AuditLog(testStore.store).list();
    expect(events.map((event) => event.type)).toContain('helm_unapproved_call_refused');
  });
});
