import { HostRepository, probeHostKey, TroubleshootErrors } from '../agents/troubleshoot/index.ts';
import type { SecretStore } from '../core/agent/index.ts';
import type { Store } from '../core/store/index.ts';
import type { HostDirectory } from '../server/index.ts';

/** Reads the key the host presents now. Default: a real SSH handshake (`probeHostKey`). */
export type HostKeyProbe = (address: string, port: number) => Promise<string>;

/**
 * Pins `fingerprint` for host `name` after checking that the server presents exactly that key
 * (`opsgate hosts trust` and the web's Hosts screen both call this). A different key fails with
 * `HOST_KEY_CHANGED` and pins nothing.
 */
export async function trustHostKey(
  hosts: HostRepository,
  name: string,
  fingerprint: string,
  probe: HostKeyProbe = probeHostKey,
): Promise<string> {
  const host = await hosts.get(name);
  const seen = await probe(host.address, host.port);
  if (seen !== fingerprint) {
    throw TroubleshootErrors.HOST_KEY_CHANGED({
      host: host.name,
      address: host.address,
      port: host.port,
      expected: fingerprint,
      actual: seen,
    });
  }
  await hosts.confirmHostKey(host.name, seen);
  return seen;
}

/** The server's view of the troubleshoot hosts: the same repository and trust check as the CLI. */
export function createHostDirectory(store: Store, secrets: SecretStore, probe: HostKeyProbe = probeHostKey): HostDirectory {
  const hosts = new HostRepository(store, secrets);
  return {
    list: () => hosts.list(),
    add: (input) => hosts.add(input),
    remove: (name) => hosts.remove(name),
    async fingerprint(name) {
      const host = await hosts.get(name);
      return probe(host.address, host.port);
    },
    trust: (name, fingerprint) => trustHostKey(hosts, name, fingerprint, probe),
  };
}
