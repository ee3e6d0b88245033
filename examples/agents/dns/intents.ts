import type { InterpreterRules } from '../../../src/core/model/index.ts';

/** What the dns agent does without a model: the same tool calls a model would make. */
export const dnsInterpreter: InterpreterRules = {
  help: ['lookup ZONE NAME TYPE       read one record', 'set ZONE NAME TYPE VALUE    change one record (asks for approval)'],
  next(turn) {
    const last = turn.steps.at(-1);
    if (last) return { text: last.isError ? String(last.output) : JSON.stringify(last.output) };
    const text = turn.userText.trim();
    const lookup = /^lookup\s+(\S+)\s+(\S+)\s+(\S+)$/i.exec(text);
    if (lookup)
      return { toolCalls: [{ toolName: 'lookup_record', input: { zone: lookup[1]!, name: lookup[2]!, type: lookup[3]!.toUpperCase() } }] };
    const set = /^set\s+(\S+)\s+(\S+)\s+(\S+)\s+(.+)$/i.exec(text);
    if (set)
      return {
        toolCalls: [{ toolName: 'change_record', input: { zone: set[1]!, name: set[2]!, type: set[3]!.toUpperCase(), value: set[4]! } }],
      };
    return undefined;
  },
};
