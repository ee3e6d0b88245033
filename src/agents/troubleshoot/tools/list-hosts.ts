import { z } from 'zod';
import { defineTool } from '../../../core/tools/index.ts';
import type { TroubleshootDeps } from './deps.ts';

/** The registered hosts, without any credential (only whether the host key is pinned). */
export function listHostsTool(deps: TroubleshootDeps) {
  return defineTool({
    name: 'list_hosts',
    description: 'List the hosts you can run commands on: name, address, user, OS (if known) and whether the host key is confirmed.',
    input: z.object({}),
    mutability: 'read-only',
    /** Live state: never answer from the session's result cache. */
    cache: false,
    async execute(_input, context) {
      const hosts = await deps.hosts.list();
      // Identify is done once the hosts are known; Verify (detect_os) comes next (AR-18).
      if (context.phase === 'identify' && hosts.length > 0) context.setPhase('verify', 'hosts listed');
      return {
        hosts: hosts.map((h) => ({
          name: h.name,
          address: h.address,
          port: h.port,
          username: h.username,
          os: h.os,
          host_key: h.hostKeySha256 ? 'confirmed' : 'not confirmed',
        })),
      };
    },
  });
}
