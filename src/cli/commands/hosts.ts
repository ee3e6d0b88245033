import { readFileSync } from 'node:fs';
import { TroubleshootErrors } from '../../agents/troubleshoot/errors.ts';
import { HostRepository } from '../../agents/troubleshoot/hosts/host-repository.ts';
import { probeHostKey } from '../../agents/troubleshoot/ssh/ssh-connect.ts';
import { troubleshootMigrations } from '../../agents/troubleshoot/store/migrations.ts';
import { trustHostKey } from '../../app/host-directory.ts';
import { createStoreSecretStore } from '../../core/agent/index.ts';
import { AuditLog, SYSTEM_ACTOR } from '../../core/audit/index.ts';
import { LOCAL_ADMIN } from '../../core/identity/identity-audit.ts';
import { openStore, resolveDataDir } from '../../core/store/index.ts';
import { type CliCommand, type CliIo, UsageError } from '../command.ts';
import { parseCommandArgs, parseIntegerOption } from '../parse-args.ts';

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  return text.replace(/\r?\n$/, '');
}

export const hostsCommand: CliCommand = {
  name: 'hosts',
  summary: 'Register SSH hosts for the troubleshoot agent (hosts add | trust | list | remove)',
  usage: `Usage:
  opsgate hosts add NAME --address HOST --user USER (--key-file PATH | --password-stdin) [--port 22] [--os linux|windows] [--fingerprint SHA256:…]
  opsgate hosts trust NAME SHA256:…
  opsgate hosts list
  opsgate hosts remove NAME

add     stores the host; the key or password goes to opsgate's secret store, never to the model.
        The server's host key is read and printed. It is pinned only when you confirm it: pass the
        fingerprint you verified out of band with --fingerprint, or run "hosts trust" afterwards.
trust   pins the fingerprint after checking that the server presents exactly that key.
        A host whose key changed refuses to connect; remove and re-add it after verifying the new key.`,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const [action, ...rest] = args;
    if (action !== 'add' && action !== 'trust' && action !== 'list' && action !== 'remove') {
      throw new UsageError('expected "add", "trust", "list" or "remove" (see opsgate hosts --help)');
    }
    const { values, positionals } = parseCommandArgs(
      rest,
      {
        address: { type: 'string' },
        port: { type: 'string' },
        user: { type: 'string' },
        'key-file': { type: 'string' },
        'password-stdin': { type: 'boolean' },
        os: { type: 'string' },
        fingerprint: { type: 'string' },
      },
      true,
    );
    const expected = { add: 1, trust: 2, list: 0, remove: 1 }[action];
    if (positionals.length !== expected)
      throw new UsageError(`hosts ${action} takes ${expected} positional argument(s), got ${positionals.length}`);
    if (action !== 'add' && Object.keys(values).length > 0) throw new UsageError(`options belong to "hosts add", not "hosts ${action}"`);
    let secret: { kind: 'key'; privateKey: string } | { kind: 'password'; password: string } | undefined;
    let port = 22;
    if (action === 'add') {
      if (!values.address || !values.user) throw new UsageError('hosts add needs --address and --user');
      if (Boolean(values['key-file']) === Boolean(values['password-stdin']))
        throw new UsageError('hosts add needs exactly one of --key-file or --password-stdin');
      if (values.os !== undefined && values.os !== 'linux' && values.os !== 'windows')
        throw new UsageError(`--os must be linux or windows, got "${values.os}"`);
      port = parseIntegerOption('port', values.port, 22);
      if (values['key-file']) {
        try {
          secret = { kind: 'key', privateKey: readFileSync(values['key-file'], 'utf8') };
        } catch (error) {
          throw new UsageError(`cannot read --key-file ${values['key-file']}: ${(error as Error).message}`);
        }
      } else {
        secret = { kind: 'password', password: await readStdin(io.stdin) };
      }
    }
    const store = await openStore({
      dataDir: resolveDataDir(io.env.OPSGATE_DATA_DIR),
      databaseUrl: io.env.OPSGATE_DATABASE_URL ?? '',
      migrations: troubleshootMigrations,
    });
    // Host changes are identity operations: on the record as the local administrator, never a secret.
    const audit = new AuditLog(store);
    try {
      const hosts = new HostRepository(store, createStoreSecretStore(store));
      const record = (type: 'host_added' | 'host_trusted' | 'host_removed', payload: Record<string, unknown>) =>
        audit.append({
          type,
          actor: SYSTEM_ACTOR,
          payload: { ...payload, by: LOCAL_ADMIN, via: `cli (os user ${io.env.USER ?? 'unknown'})` },
        });
      if (action === 'list') {
        for (const h of await hosts.list()) {
          io.stdout.write(`${h.name}\t${h.username}@${h.address}:${h.port}\t${h.os}\t${h.hostKeySha256 ?? 'host key NOT confirmed'}\n`);
        }
      } else if (action === 'remove') {
        await hosts.remove(positionals[0]!);
        await record('host_removed', { name: positionals[0] });
        io.stdout.write(`removed ${positionals[0]} and its credentials\n`);
      } else if (action === 'trust') {
        const seen = await trustHostKey(hosts, positionals[0]!, positionals[1]!);
        await record('host_trusted', { name: positionals[0], hostKeySha256: seen });
        io.stdout.write(`pinned ${seen} for ${positionals[0]}\n`);
      } else {
        const seen = await probeHostKey(values.address!, port);
        if (values.fingerprint !== undefined && values.fingerprint !== seen) {
          throw TroubleshootErrors.HOST_KEY_CHANGED({
            host: positionals[0],
            address: values.address,
            port,
            expected: values.fingerprint,
            actual: seen,
          });
        }
        const host = await hosts.add({
          name: positionals[0]!,
          address: values.address!,
          port,
          username: values.user!,
          ...(values.os ? { os: values.os as 'linux' | 'windows' } : {}),
          auth: secret!,
          ...(values.fingerprint ? { hostKeySha256: seen } : {}),
        });
        await record('host_added', {
          name: host.name,
          address: host.address,
          port: host.port,
          username: host.username,
          authKind: secret!.kind,
          ...(host.hostKeySha256 ? { hostKeySha256: host.hostKeySha256 } : {}),
        });
        io.stdout.write(`added ${host.name} (${host.username}@${host.address}:${host.port})\nhost key fingerprint: ${seen}\n`);
        if (!host.hostKeySha256)
          io.stdout.write(`not pinned yet: verify it out of band, then run: opsgate hosts trust ${host.name} ${seen}\n`);
      }
      return 0;
    } finally {
      await audit.close();
      await store.close();
    }
  },
};
