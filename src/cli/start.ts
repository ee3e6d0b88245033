/**
 * bin/opsgate's entry. It imports nothing at the top so that a missing dependency (a clone where
 * `npm install` never ran, or a half-installed node_modules) ends in one line that says what to
 * run, not in Node's stack trace for ERR_MODULE_NOT_FOUND.
 */
const missingPackage = (error: unknown): string | undefined => {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  // Only a missing package is an install problem; a missing file of ours is a bug and keeps its trace.
  return /Cannot find package '([^']+)'/.exec(error.message)?.[1];
};

let cli: typeof import('./main.ts');
try {
  cli = await import('./main.ts');
} catch (error) {
  const name = missingPackage(error);
  if (name === undefined) throw error;
  process.stderr.write(
    `opsgate: the dependencies are not installed (package "${name}" is missing); run "npm start" or "npm install" first\n`,
  );
  process.exit(1);
}
process.exitCode = await cli.main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
