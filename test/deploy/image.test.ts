import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Opt-in (OPSGATE_TEST_IMAGE=1, as root): building the image takes minutes (mmdebstrap fetches a
// Debian root filesystem), more than the 5-minute suite allows. It runs what `npm run image` built
// (OPSGATE_IMAGE_DIR, default .cache/image; built first when missing) the way a container runtime
// would, with no runtime here: its root filesystem unpacked by umoci, entered with chroot as the
// image's user, with the image's entrypoint and command.
const root = resolve(import.meta.dirname, '../..');
const imageDir = process.env.OPSGATE_IMAGE_DIR ?? join(root, '.cache/image');
const wanted = process.env.OPSGATE_TEST_IMAGE === '1' && process.getuid?.() === 0;

async function freePort(): Promise<number> {
  return await new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

describe.runIf(wanted)('the container image (npm run image)', () => {
  let bundle: string;
  let rootfs: string;
  let server: ChildProcess | undefined;
  let port: number;
  let runtime: { user: { uid: number; gid: number }; args: string[]; env: string[] };

  beforeAll(async () => {
    if (!existsSync(join(imageDir, 'oci/index.json'))) execFileSync('bash', ['scripts/build-image.sh'], { cwd: root, stdio: 'inherit' });
    const tag = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    bundle = join(mkdtempSync(join(tmpdir(), 'opsgate-image-')), 'bundle');
    execFileSync('umoci', ['unpack', '--image', `${join(imageDir, 'oci')}:${tag}`, bundle], { stdio: 'ignore' });
    rootfs = join(bundle, 'rootfs');
    runtime = (JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8')) as { process: typeof runtime }).process;
    execFileSync('mount', ['-t', 'proc', 'proc', join(rootfs, 'proc')]);
    execFileSync('mount', ['--rbind', '/dev', join(rootfs, 'dev')]);
    port = await freePort();
  }, 600_000);

  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = once(server, 'exit');
      server.kill('SIGKILL');
      await exited;
    }
    for (const mount of ['dev', 'proc']) execFileSync('umount', ['--recursive', '--lazy', join(rootfs, mount)]);
    // Only with nothing mounted below it: removing the bundle must never walk into the host's /dev.
    if (!readFileSync('/proc/self/mounts', 'utf8').includes(bundle)) rmSync(resolve(bundle, '..'), { recursive: true, force: true });
  }, 120_000);

  it('serves /readyz as a non-root user from its own entrypoint and command', async () => {
    expect(runtime.user.uid).toBe(10001);
    const args = runtime.args.map((arg) => (arg === '0.0.0.0' ? '127.0.0.1' : arg === '8080' ? String(port) : arg));
    expect(args.slice(0, 2)).toEqual(['/usr/local/bin/opsgate', 'serve']);
    server = spawn(
      'chroot',
      [`--userspec=${runtime.user.uid}:${runtime.user.gid}`, rootfs, '/usr/bin/env', '-i', ...runtime.env, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let printed = '';
    server.stdout?.on('data', (chunk) => (printed += chunk));
    server.stderr?.on('data', (chunk) => (printed += chunk));
    let ready: Response | undefined;
    for (let attempt = 0; attempt < 480 && !ready?.ok; attempt += 1) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      if (!ready?.ok) await new Promise((wait) => setTimeout(wait, 500));
    }
    expect(ready?.status, printed).toBe(200);
    expect(await ready!.json()).toEqual({ ok: true, store: 'sqlite' });
    // chroot, env and bin/opsgate each exec the next, so the spawned pid is the serving node process.
    expect(readFileSync(`/proc/${server.pid}/cmdline`, 'utf8')).toContain('/usr/local/bin/node');
    expect(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]).toBe('10001');
  }, 600_000);
});
