import type { UserRepository } from '../core/identity/users.ts';
import type { Store } from '../core/store/index.ts';
import { type ChangedTool, type Gateway, ToolDefinitions, toolChangeView } from '../gateway/index.ts';
import { withoutControls } from '../gateway/untrusted-text.ts';
import type { WebhookDispatcher } from './webhooks/index.ts';

/** Where a tool definition change is announced: the signed webhooks and the Slack integration, when set up. */
export interface GatewayNoticeTargets {
  readonly webhooks?: WebhookDispatcher;
  readonly slack?: { notice(text: string, admins: readonly string[]): void };
  readonly users: UserRepository;
  /** The server's public address, for a link to the review screen (`OPSGATE_PUBLIC_URL`). */
  readonly publicUrl?: string;
}

/**
 * How often the store is asked for changes another process recorded (a stand-alone `opsgate
 * gateway`, a replica): one small select. A change this process records is announced at once.
 */
const UNANNOUNCED_POLL_MS = 2_000;

/** The names of a change as a notice shows them: the upstream's text, without escapes, clipped. */
function safe(text: string): string {
  return withoutControls(text).slice(0, 128);
}

/**
 * Tells admins when an MCP gateway upstream changes a tool's definition (F3, rug pulls): the
 * tool is held back until one of them reviews and accepts it. The notice names the upstream, the
 * tool and any prompt-injection markers; it never carries the upstream's new description itself.
 * Each change is announced once, by whichever announcing process claims it in the store first —
 * also a change that a process without notices (a stand-alone `opsgate gateway`) recorded.
 */
export function announceToolChanges(gateway: Gateway, store: Store, targets: GatewayNoticeTargets): () => void {
  const definitions = new ToolDefinitions(store);
  const announce = async (change: ChangedTool) => {
    if (await definitions.claimNotice(change)) notify(change, targets);
  };
  const stopListening = gateway.onDefinitionChanged((change) => {
    announce(change).catch(() => {});
  });
  // Fails until the gateway's agents have migrated the store at start: the next round asks again.
  const poll = setInterval(() => {
    definitions
      .unannounced()
      .then(async (changes) => {
        for (const change of changes) await announce(change);
      })
      .catch(() => {});
  }, UNANNOUNCED_POLL_MS);
  poll.unref();
  return () => {
    stopListening();
    clearInterval(poll);
  };
}

function notify(change: ChangedTool, targets: GatewayNoticeTargets): void {
  const reviewUrl = targets.publicUrl ? `${targets.publicUrl.replace(/\/$/, '')}/#/admin` : undefined;
  const { markers } = toolChangeView(change);
  targets.webhooks?.notify({
    id: crypto.randomUUID(),
    type: 'tool_definition.changed',
    createdAt: change.changedAt,
    change: {
      upstream: change.upstream,
      tool: safe(change.tool),
      acceptedHash: change.acceptedHash,
      changedHash: change.changedHash,
      markers,
      ...(reviewUrl ? { reviewUrl } : {}),
    },
  });
  if (!targets.slack) return;
  const slack = targets.slack;
  const text = [
    `opsgate: the MCP upstream "${change.upstream}" changed the definition of its tool "${safe(change.tool)}". The gateway holds it back until an admin reviews and accepts the change${reviewUrl ? ` (${reviewUrl}, MCP tool changes)` : ' (web UI: Admin, MCP tool changes)'}.`,
    ...(markers.length > 0 ? [`Its new description has prompt-injection markers: ${markers.join(', ')}.`] : []),
  ].join('\n');
  void targets.users
    .list()
    .then((people) =>
      slack.notice(
        text,
        people.filter((p) => p.roles.includes('admin') && !p.disabled).map((p) => p.username),
      ),
    )
    .catch(() => {});
}
