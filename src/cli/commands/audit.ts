import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { AuditLog } from '../../core/audit/index.ts';
import { openStore, resolveDataDir } from '../../core/store/index.ts';
import { type CliCommand, UsageError } from '../command.ts';
import { parseCommandArgs } from '../parse-args.ts';

const usage = `Usage: opsgate audit verify [--checkpoints FILE]
       opsgate audit export [--out FILE] [--session ID] [--type TYPE] [--actor ACTOR] [--since ISO] [--until ISO]

verify  walks the hash chain of every audit event and checks it against the signed checkpoints
        (in the store and in OPSGATE_AUDIT_CHECKPOINT_FILE, default <data-dir>/audit-checkpoints.jsonl),
        each event's journal MAC (key: OPSGATE_AUDIT_KEY, else <data-dir>/audit.key) and every
        approved or executed tool call's events. With an external anchor (PostgreSQL replicas:
        OPSGATE_AUDIT_ANCHOR_COMMAND / OPSGATE_AUDIT_ANCHOR_READ_COMMAND, docs/audit-integrity.md)
        its checkpoints are read too; --checkpoints FILE adds a copy of it (from another host).
        Exit 0 when all hold; 1 with a one-line reason when anything was changed, removed,
        reordered, truncated, wiped, forged or re-hashed.
export  writes the events as JSON Lines (to stdout, or --out FILE), oldest first.`;

export const auditCommand: CliCommand = {
  name: 'audit',
  summary: 'verify the audit hash chain, or export it as JSON Lines',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        out: { type: 'string' },
        session: { type: 'string' },
        type: { type: 'string' },
        actor: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        checkpoints: { type: 'string' },
      },
      true,
    );
    const verb = positionals[0];
    if ((verb !== 'verify' && verb !== 'export') || positionals.length > 1)
      throw new UsageError('expected "opsgate audit verify" or "opsgate audit export"');
    const { checkpoints, ...exportOptions } = values;
    if (verb === 'verify' && Object.keys(exportOptions).length > 0) throw new UsageError('"audit verify" takes only --checkpoints FILE');
    if (verb === 'export' && checkpoints !== undefined) throw new UsageError('--checkpoints is an option of "audit verify"');
    const store = await openStore({
      dataDir: resolveDataDir(io.env.OPSGATE_DATA_DIR),
      databaseUrl: io.env.OPSGATE_DATABASE_URL ?? '',
      auditKey: io.env.OPSGATE_AUDIT_KEY ?? '',
      auditCheckpointFile: io.env.OPSGATE_AUDIT_CHECKPOINT_FILE ?? '',
      auditAnchorCommand: io.env.OPSGATE_AUDIT_ANCHOR_COMMAND ?? '',
      auditAnchorReadCommand: io.env.OPSGATE_AUDIT_ANCHOR_READ_COMMAND ?? '',
    });
    try {
      const audit = new AuditLog(store);
      if (verb === 'verify') {
        const result = await audit.verify(checkpoints ? { checkpointsFile: checkpoints } : {});
        for (const notice of result.notices ?? []) io.stderr.write(`notice: ${notice}\n`);
        if (result.ok) {
          io.stdout.write(
            `audit chain OK: ${result.checked} events verified against ${result.checkpoints ?? 0} signed checkpoint(s) (from ${(result.sources ?? ['the store']).join(', ')}), ${result.callsChecked ?? 0} tool call(s) cross-checked (${store.location})\n`,
          );
          return 0;
        }
        io.stdout.write(
          result.firstBrokenSeq === undefined
            ? `audit chain BROKEN: ${result.reason}\n`
            : `audit chain BROKEN at event ${result.firstBrokenSeq}: ${result.reason} (${result.checked} events before it verified)\n`,
        );
        return 1;
      }
      const out = values.out ? createWriteStream(values.out) : io.stdout;
      let count = 0;
      for await (const line of audit.exportJsonLines({
        ...(values.session ? { sessionId: values.session } : {}),
        ...(values.type ? { type: values.type } : {}),
        ...(values.actor ? { actor: values.actor } : {}),
        ...(values.since ? { since: values.since } : {}),
        ...(values.until ? { until: values.until } : {}),
      })) {
        if (!out.write(line)) await once(out, 'drain');
        count += 1;
      }
      if (values.out) {
        (out as ReturnType<typeof createWriteStream>).end();
        await once(out, 'finish');
        io.stderr.write(`wrote ${count} events to ${values.out}\n`);
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
