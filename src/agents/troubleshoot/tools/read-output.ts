import { z } from 'zod';
import { defineTool } from '../../../core/tools/index.ts';
import { TroubleshootErrors } from '../errors.ts';
import { type CommandResult, READ_OUTPUT_TOOL, type RunningRecord, recordOutcome, STATE_RUNNING } from './command-result.ts';
import { resolveHost, type TroubleshootDeps, terminalEmitter } from './deps.ts';

const readOutputInput = z.object({
  host: z.string().min(1).max(63).optional().describe('Host name. Default: the host of this session.'),
  wait_seconds: z
    .number()
    .int()
    .min(0)
    .max(600)
    .optional()
    .describe('How long to wait for more output or the end. Default: the soft timeout (120 s).'),
});

/**
 * Reads what the running (or last) command printed since the previous read (AR-04, AR-12). The
 * "Read Output & Continue" path: after a `still_running` result, this continues the wait.
 */
export function readOutputTool(deps: TroubleshootDeps) {
  return defineTool({
    name: READ_OUTPUT_TOOL,
    description:
      'Read the output a still-running command printed since the last read, waiting up to wait_seconds for it to finish. Read-only: it sends nothing to the shell.',
    input: readOutputInput,
    mutability: 'read-only',
    /** Live state: never answer from the session's result cache. */
    cache: false,
    async execute(input, context): Promise<CommandResult> {
      const host = await resolveHost(deps, input.host, context);
      const shell = await deps.shells.existing(context.sessionId, host.id);
      if (!shell) throw TroubleshootErrors.NO_RUNNING_COMMAND({ host: host.name });
      shell.setOutputListener(terminalEmitter(context, host));
      const running = context.state[STATE_RUNNING] as RunningRecord | undefined;
      const outcome = await shell.readOutput({ waitMs: (input.wait_seconds ?? deps.softTimeoutMs / 1000) * 1000, signal: context.signal });
      const historyId =
        running && running.host === host.name ? running.historyId : (await deps.history.findLatestForHost(context.sessionId, host.id))?.id;
      if (historyId === undefined) throw TroubleshootErrors.NO_RUNNING_COMMAND({ host: host.name });
      return recordOutcome(deps, context, host, historyId, outcome, 'new');
    },
  });
}
