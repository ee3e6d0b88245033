// A throwaway PostgreSQL cluster, started the way scripts/test-services.sh starts one (initdb with
// trust auth on a loopback port, the server run as `postgres` when we are root), but with fsync
// chosen by the caller and a restart for fault tests. The load benchmark runs it with fsync on.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresCluster {
  /** `postgres://opsgate@127.0.0.1:PORT/postgres`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server at once (`-m immediate`, like a crash); the data directory stays. */
  stop(): void;
  /** Starts the stopped server again on the same port and data. */
  start(): void;
  /** The data directory (its `postmaster.pid` names the server process). */
  readonly dataDir: string;
  /** Stops the server and deletes its files. */
  dispose(): void;
}

export interface PostgresClusterOptions {
  /** `fsync` of the server. Default false (tests); the load benchmark turns it on. */
  readonly fsync?: boolean;
  /** Default 300. */
  readonly maxConnections?: number;
  /** Loads `pg_stat_statements` (the profile of bench/load/profile.ts). */
  readonly statementStatistics?: boolean;
  /** Further server settings (`-c name=value`), e.g. `{ wal_writer_delay: '10s' }`. */
  readonly settings?: Readonly<Record<string, string>>;
}

/** The newest installed PostgreSQL's bin directory, or undefined when none is installed. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest ? join(root, newest, 'bin') : undefined;
}

/**
 * Ports below Linux's ephemeral range (32768–60999), where the client side of any connection on the
 * machine may sit; another test's cluster can still hold one, so a failed start tries another.
 */
function startOnFreePort(startOn: (port: number) => void): number {
  for (let attempt = 1; ; attempt += 1) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    try {
      startOn(port);
      return port;
    } catch (error) {
      if (attempt >= 5) throw error;
    }
  }
}

export function startPostgresCluster(options: PostgresClusterOptions = {}): PostgresCluster {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'opsgate-pg-'));
  chmodSync(dir, 0o755);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    execFileSync(file as string, argv as string[], { stdio: 'ignore' });
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'opsgate', '--auth=trust', '-E', 'UTF8']);
  const serverOptions = (port: number) =>
    [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      `-c fsync=${options.fsync ? 'on' : 'off'}`,
      `-c max_connections=${options.maxConnections ?? 300}`,
      ...(options.statementStatistics ? ['-c shared_preload_libraries=pg_stat_statements', '-c pg_stat_statements.track=all'] : []),
      ...Object.entries(options.settings ?? {}).map(([name, value]) => `-c ${name}=${value}`),
    ].join(' ');
  const startOn = (port: number) => run('pg_ctl', ['-D', data, '-o', serverOptions(port), '-w', '-l', join(dir, 'log'), 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
  const port = startOnFreePort(startOn);
  const start = () => startOn(port);
  let disposed = false;
  return {
    url: `postgres://opsgate@127.0.0.1:${port}/postgres`,
    port,
    dataDir: data,
    stop,
    start,
    dispose() {
      if (disposed) return;
      disposed = true;
      try {
        stop();
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
