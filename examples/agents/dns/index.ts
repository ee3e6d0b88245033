import { join } from 'node:path';
import { defineAgent } from '../../../src/core/agent/index.ts';
import { dnsInterpreter } from './intents.ts';
import { DNS_INSTRUCTIONS } from './prompt.ts';
import { changeRecordTool } from './tools/change-record.ts';
import { lookupRecordTool } from './tools/lookup-record.ts';
import { openZones } from './zone/zones.ts';

/** The dns agent: reads records freely; every record change is approved against its before/after. */
export const dnsAgent = defineAgent({
  name: 'dns',
  title: 'DNS records',
  description: 'Look up the records of a zone; change one only after a person approved the change shown.',
  instructions: DNS_INSTRUCTIONS,
  async setup(context) {
    const zones = openZones(context.options.zonesDir ?? join(context.dataDir, 'zones'));
    return { tools: [lookupRecordTool(zones), changeRecordTool(zones)], interpreter: dnsInterpreter };
  },
});
