import { z } from 'zod';
import { defineTool } from '../../../core/tools/index.ts';
import type { ShellFamily } from '../ssh/command-markers.ts';
import type { HostOs } from '../store/schema.ts';
import { recordOutcome } from './command-result.ts';
import { resolveHost, type TroubleshootDeps, terminalEmitter } from './deps.ts';

/** Fixed, read-only detection commands per shell (AR-06, the Verify phase). */
const OS_DETECTION_COMMANDS: Readonly<Record<ShellFamily, string>> = {
  posix: 'uname -a',
  prompt: 'uname -a',
  powershell: '$PSVersionTable.PSVersion.ToString(); [System.Environment]::OSVersion.VersionString',
  cmd: 'ver',
};

/** Reads the OS from a detection command's output. */
function classifyOs(output: string): HostOs {
  if (/Microsoft Windows|Windows NT|Win32NT/i.test(output)) return 'windows';
  if (/\b(Linux|Darwin|FreeBSD|OpenBSD|NetBSD|SunOS|AIX)\b/.test(output)) return 'linux';
  return 'unknown';
}

const WORKFLOW_ORDER = ['identify', 'verify', 'investigate', 'plan', 'act'];

/** Runs the OS detection command in the visible shell (read-only, still shown) and stores the OS. */
export function detectOsTool(deps: TroubleshootDeps) {
  return defineTool({
    name: 'detect_os',
    description:
      'Verify phase: detect the host OS by running a fixed read-only command (`uname -a`, `ver` or `$PSVersionTable`) in the visible terminal.',
    input: z.object({ host: z.string().min(1).max(63).optional().describe('Host name. Default: the host of this session.') }),
    mutability: 'read-only',
    /** Live state: never answer from the session's result cache. */
    cache: false,
    async execute(input, context) {
      const host = await resolveHost(deps, input.host, context);
      const shell = await deps.shells.shellFor(context.sessionId, host, terminalEmitter(context, host));
      const command = OS_DETECTION_COMMANDS[shell.family];
      const { entry } = await deps.history.propose({
        sessionId: context.sessionId,
        hostId: host.id,
        userId: context.identity.userId,
        toolCallId: context.callId,
        command,
        status: 'proposed',
        at: deps.clock.now().toISOString(),
      });
      await deps.history.approve(entry.id, { at: deps.clock.now().toISOString(), approver: null, rule: 'read-only-os-detection' });
      const outcome = await shell.run(command, { softTimeoutMs: 30_000, signal: context.signal });
      const result = await recordOutcome(deps, context, host, entry.id, outcome, 'all');
      const os = classifyOs(outcome.output);
      if (os !== 'unknown') await deps.hosts.setOs(host.name, os);
      const index = WORKFLOW_ORDER.indexOf(context.phase);
      if (index >= 0 && index < WORKFLOW_ORDER.indexOf('investigate')) context.setPhase('investigate', `OS detected: ${os}`);
      return { ...result, os, shell: shell.family };
    },
  });
}
