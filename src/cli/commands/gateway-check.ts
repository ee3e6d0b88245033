import type { Gateway } from '../../gateway/index.ts';
import type { ChangedTool } from '../../gateway/tool-definitions.ts';
import { treatmentOf } from '../../gateway/upstream-agent.ts';

/**
 * What `opsgate gateway --check` prints: each upstream's state and tools, how each tool is treated
 * (runs / asks / denied, and why), held-back definition changes and pins that name no tool.
 * Returns the number of problems (an upstream down, a held change, a pin on a missing tool).
 */
export function writeGatewayCheck(gateway: Gateway, changes: readonly ChangedTool[], out: NodeJS.WritableStream): number {
  let problems = 0;
  for (const upstream of gateway.upstreams.values()) {
    const status = upstream.status();
    const config = upstream.config;
    out.write(
      `${upstream.name}: ${status.state} (${status.transport}), ${status.tools} tools${config.trusted ? ', annotations trusted' : ', annotations not trusted'}${status.lastError ? ` — ${status.lastError}` : ''}\n`,
    );
    if (status.state !== 'up') problems++;
    for (const tool of upstream.tools) {
      const treatment = treatmentOf(tool, config.tools[tool.name], config.trusted);
      const mayApprove = config.tools[tool.name]?.requesterMayApprove ?? config.requesterMayApprove;
      const how = !treatment.offered
        ? 'denied'
        : treatment.mutability === 'read-only'
          ? 'runs at once'
          : `asks (risk ${treatment.risk}; ${mayApprove ? 'the requester may approve below high risk' : 'someone other than the requester approves'})`;
      out.write(`  ${upstream.name}__${tool.name}: ${how} — ${treatment.why}\n`);
    }
    for (const name of upstream.held) {
      problems++;
      out.write(
        `  ${upstream.name}__${name}: HELD — its definition changed since it was accepted; review it, then: opsgate gateway --accept-tool ${upstream.name}/${name} --config FILE\n`,
      );
    }
    if (status.state === 'up') {
      const listed = new Set([...upstream.tools.map((t) => t.name), ...upstream.held]);
      for (const pinned of Object.keys(config.tools))
        if (!listed.has(pinned)) {
          problems++;
          out.write(`  PIN "${pinned}" names no tool of ${upstream.name} (it lists: ${[...listed].sort().join(', ') || 'none'})\n`);
        }
    }
  }
  for (const change of changes) {
    out.write(
      `changed ${change.upstream}/${change.tool} at ${change.changedAt}:\n  accepted: ${JSON.stringify(change.accepted)}\n  now:      ${JSON.stringify(change.changed)}\n`,
    );
  }
  out.write(problems === 0 ? 'no problems\n' : `${problems} problem(s)\n`);
  return problems;
}
