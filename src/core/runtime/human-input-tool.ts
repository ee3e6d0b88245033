import { z } from 'zod';
import { defineTool } from '../tools/index.ts';

export const HUMAN_INPUT_TOOL = 'request_human_input';

/** The answers a person can give to a question (AR-13). `custom` admits free text. */
export const QUESTION_OPTIONS = ['yes', 'no', 'skip', 'custom'] as const;

const humanInputSchema = z.object({
  question: z.string().min(1).describe('The question for the person, with everything they need to answer it.'),
  context: z.unknown().optional().describe('Details to show with the question: a values diff, required fields, a plan.'),
});

/**
 * The core's human gate: the turn pauses with a question interrupt and resumes with the answer
 * as this tool's result. It never executes on its own; the runtime handles it.
 */
export const humanInputTool = defineTool<z.infer<typeof humanInputSchema>, unknown>({
  name: HUMAN_INPUT_TOOL,
  description: 'Ask the person a question and wait for the answer (Yes, No, Skip, or their own words). Use it at every human gate.',
  input: humanInputSchema,
  mutability: 'read-only',
  execute: async () => {
    throw new Error('request_human_input is answered by a person, not executed');
  },
});
