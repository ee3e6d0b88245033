import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from '../../../../src/core/tools/index.ts';
import { DnsErrors } from '../errors.ts';
import { RECORD_TYPES, type Zones } from '../zone/zones.ts';

/** `lookup_record`: reads one record; runs at once. */
export function lookupRecordTool(zones: Zones): AnyToolDefinition {
  return defineTool({
    name: 'lookup_record',
    description: 'Read one record of a zone (name and type). Read-only.',
    input: z.object({ zone: z.string(), name: z.string(), type: z.enum(RECORD_TYPES) }).strict(),
    mutability: 'read-only',
    // A record changes when change_record runs: never answer from an earlier identical call.
    cache: false,
    execute: async (input) => {
      const value = zones.record(input.zone, input.name, input.type);
      if (value === undefined) throw DnsErrors.DNS_RECORD_NOT_FOUND(input);
      return { ...input, value };
    },
  });
}
