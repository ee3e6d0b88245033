import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from '../../../../src/core/tools/index.ts';
import { assessRecordChange } from '../risk.ts';
import { RECORD_TYPES, type Zones } from '../zone/zones.ts';

/** `change_record`: sets one record; approved against the before/after shown. */
export function changeRecordTool(zones: Zones): AnyToolDefinition {
  return defineTool({
    name: 'change_record',
    description: 'Set one record of a zone (name, type, value). Needs approval; shows the record before and after.',
    input: z.object({ zone: z.string(), name: z.string(), type: z.enum(RECORD_TYPES), value: z.string() }).strict(),
    mutability: 'mutable',
    assessRisk: (input) => assessRecordChange(input.type, input.name),
    preview: (input) => {
      const before = zones.record(input.zone, input.name, input.type) ?? '(none)';
      return {
        kind: 'dns-change',
        summary: `${input.name} ${input.type}: ${before} → ${input.value}`,
        headline: `${input.name}.${input.zone} ${input.type} → ${input.value}`,
        // A flat record: the approval panel shows it as label/value rows.
        details: { zone: input.zone, name: input.name, type: input.type, before, after: input.value },
        bindingDigest: zones.digest(input),
      };
    },
    execute: async (input, context) => {
      const result = zones.set(input);
      await context.audit('dns_record_changed', { zone: input.zone, name: input.name, type: input.type });
      return result;
    },
  });
}
