import { z } from 'zod';
import { type AgentDefinition, defineAgent } from '../../src/core/agent/index.ts';
import { HUMAN_INPUT_TOOL } from '../../src/core/runtime/index.ts';
import { defineTool } from '../../src/core/tools/index.ts';

export const VALUES_DIFF = '--- current values\n+++ proposed values\n@@ replicas @@\n-replicas: 1\n+replicas: 3';

/**
 * A small workflow agent for the panel tests: asks first (AR-13), then proposes a mutable `scale`
 * call with a values diff as its approval preview — the shape of the helm agent's gates.
 */
export function createDeployAgent(scaled: number[]): AgentDefinition {
  return defineAgent({
    name: 'deploy',
    title: 'Deploy (test)',
    description: 'Scales a web service after asking (a test agent).',
    instructions: 'Ask before scaling.',
    async setup() {
      return {
        workflow: {
          phases: [
            { name: 'discovery', title: 'Discovery' },
            { name: 'confirm', title: 'Values confirmation', gate: 'question' },
            { name: 'execute', title: 'Execution' },
          ],
        },
        route: () => 'workflow',
        tools: [
          defineTool({
            name: 'scale',
            description: 'Scale the web service.',
            input: z.object({ replicas: z.number().int().min(1).max(10) }).strict(),
            mutability: 'mutable',
            // Medium: under the default policy the requester may approve (and modify) it in these UI tests.
            risk: 'medium',
            preview: (input) => ({
              kind: 'values diff',
              summary: `web: 1 → ${input.replicas} replicas`,
              details: { diff: VALUES_DIFF.replace('+replicas: 3', `+replicas: ${input.replicas}`) },
            }),
            execute: async (input) => {
              scaled.push(input.replicas);
              return { replicas: input.replicas };
            },
          }),
        ],
        interpreter: {
          help: ['scale web'],
          next(turn) {
            const last = turn.steps.at(-1);
            if (!last)
              return {
                toolCalls: [
                  { toolName: HUMAN_INPUT_TOOL, input: { question: 'Scale web from 1 to 3 replicas?', context: { diff: VALUES_DIFF } } },
                ],
              };
            if (last.toolName === HUMAN_INPUT_TOOL) {
              const answer = last.output as { answer: string; text?: string };
              if (answer.answer === 'yes')
                return { text: 'Proposing the change.', toolCalls: [{ toolName: 'scale', input: { replicas: 3 } }] };
              if (answer.answer === 'custom') return { text: `You said: ${answer.text}` };
              return { text: `Okay, nothing changed (${answer.answer}).` };
            }
            const output = last.output as { replicas?: number; result?: { replicas?: number } } | undefined;
            if (last.isError) return { text: 'Not scaled.' };
            return { text: `Scaled to ${output?.replicas ?? output?.result?.replicas} replicas.` };
          },
        },
      };
    },
  });
}
