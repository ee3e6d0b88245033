import { z } from 'zod';
import { defineTool } from '../../../core/tools/index.ts';
import { resolveHost, type TroubleshootDeps } from './deps.ts';

/**
 * Commands tried on a host before, with the person's thumbs up/down and their exit status, so the
 * agent avoids repeating what failed (AR-10).
 */
export function getFeedbackHistoryTool(deps: TroubleshootDeps) {
  return defineTool({
    name: 'get_feedback_history',
    description:
      'Commands that failed or got a thumbs down (or up) on this host before. Check it before proposing commands and do not repeat what failed.',
    input: z.object({
      host: z.string().min(1).max(63).optional().describe('Host name. Default: the host of this session.'),
      limit: z.number().int().min(1).max(100).optional().describe('Default 20.'),
    }),
    mutability: 'read-only',
    /** Live state: never answer from the session's result cache. */
    cache: false,
    async execute(input, context) {
      const host = await resolveHost(deps, input.host, context);
      const items = await deps.history.feedbackForHost(host.id, input.limit ?? 20);
      return {
        host: host.name,
        items: items.map((item) => ({
          command: item.command,
          status: item.status,
          exit_status: item.exitStatus,
          rating: item.rating === null ? null : item.rating > 0 ? 'thumbs_up' : 'thumbs_down',
          comment: item.comment,
          at: item.at,
        })),
        note:
          items.length === 0
            ? 'No failures or feedback recorded for this host.'
            : 'Avoid commands rated thumbs_down or that failed, unless the cause is fixed.',
      };
    },
  });
}
