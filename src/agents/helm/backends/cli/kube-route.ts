import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Where both tools connect: a registered cluster's context and kubeconfig file, when it names them. */
export interface KubeTarget {
  /** `--kube-context` (helm) / `--context` (kubectl). Default: HELM_KUBECONTEXT, else the current context. */
  readonly kubeContext?: string;
  /** `--kubeconfig` for both. Default: $KUBECONFIG or ~/.kube/config. */
  readonly kubeconfig?: string;
}

/** The user the private kubeconfig defines: the only entry it has, so nothing of the admin's is shadowed by name. */
const TOKEN_USER = 'opsgate-helm-kubetoken';

/** The routing flags of a helm command; Helm reads its own HELM_KUBE* variables by itself. */
export function helmRouteArgs(target: KubeTarget): string[] {
  return [
    ...(target.kubeContext ? ['--kube-context', target.kubeContext] : []),
    ...(target.kubeconfig ? ['--kubeconfig', target.kubeconfig] : []),
  ];
}

/**
 * kubectl's flags for Helm's environment overrides other than the token (helm --help lists them;
 * Helm 3.17 and 4.1 alike). Helm applies them over the kubeconfig as kubectl applies its flags
 * (both through client-go's overrides); kubectl ignores the variables, so without these its
 * prerequisites, health checks, live drift and strict check read another cluster, or as someone else.
 */
export function helmOverrideFlags(env: NodeJS.ProcessEnv): string[] {
  const flags: string[] = [];
  if (env.HELM_KUBEAPISERVER) flags.push('--server', env.HELM_KUBEAPISERVER);
  if (env.HELM_KUBECAFILE) flags.push('--certificate-authority', env.HELM_KUBECAFILE);
  if (env.HELM_KUBETLS_SERVER_NAME) flags.push('--tls-server-name', env.HELM_KUBETLS_SERVER_NAME);
  // Helm reads it with strconv.ParseBool.
  if (/^(1|t|true)$/i.test(env.HELM_KUBEINSECURE_SKIP_TLS_VERIFY ?? '')) flags.push('--insecure-skip-tls-verify');
  if (env.HELM_KUBEASUSER) flags.push('--as', env.HELM_KUBEASUSER);
  for (const group of (env.HELM_KUBEASGROUPS ?? '').split(',')) if (group.trim()) flags.push('--as-group', group.trim());
  return flags;
}

/**
 * Runs `use` with kubectl's routing: the same context and kubeconfig as helm, Helm's overrides as
 * flags, and HELM_KUBETOKEN through a private kubeconfig. A token on kubectl's command line
 * (`--token`) is readable by every local user in /proc/PID/cmdline, so it goes into a file (0600,
 * in a 0700 folder, removed when `use` settles) that defines one user holding it; `--user` picks
 * that user and KUBECONFIG lists the file before the admin's own (client-go merges them, the first
 * file that defines a name wins), so the context, cluster and CA still come from the admin's file.
 * One difference from Helm remains: Helm adds the token to the context's user, so a client
 * certificate there is still presented; kubectl here presents the token alone.
 */
export async function withKubectlRoute<T>(
  target: KubeTarget,
  env: NodeJS.ProcessEnv,
  use: (args: readonly string[], env: NodeJS.ProcessEnv) => Promise<T>,
): Promise<T> {
  const kubeContext = target.kubeContext ?? (env.HELM_KUBECONTEXT || undefined);
  const route = [...(kubeContext ? ['--context', kubeContext] : []), ...helmOverrideFlags(env)];
  const token = env.HELM_KUBETOKEN;
  if (!token) return use([...route, ...(target.kubeconfig ? ['--kubeconfig', target.kubeconfig] : [])], env);
  const folder = await mkdtemp(join(tmpdir(), 'opsgate-kube-'));
  try {
    const overlay = join(folder, 'token-user.yaml');
    await writeFile(overlay, tokenKubeconfig(token), { mode: 0o600, flag: 'wx' });
    // `--kubeconfig` would make kubectl read that file alone, so the admin's file joins the list instead.
    const admins = target.kubeconfig ?? (env.KUBECONFIG || join(env.HOME || homedir(), '.kube', 'config'));
    return await use([...route, '--user', TOKEN_USER], { ...env, KUBECONFIG: [overlay, admins].join(delimiter) });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function tokenKubeconfig(token: string): string {
  return `${JSON.stringify({ apiVersion: 'v1', kind: 'Config', users: [{ name: TOKEN_USER, user: { token } }] })}\n`;
}
