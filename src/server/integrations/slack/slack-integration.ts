import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { type Identity, identityOf } from '../../../core/identity/index.ts';
import type { UserRepository } from '../../../core/identity/users.ts';
import type { ApprovalInterrupt, Runtime, SessionEvent } from '../../../core/runtime/index.ts';
import { type ApprovalDigest, approvalDigest } from '../approval-digest.ts';
import type { ChatIntegrationStore, SlackSettings } from '../chat-integration-store.ts';
import { linkAddress } from '../link-address.ts';
import { APPROVE_ACTION, approvalFallback, approvalRequestBlocks, type ButtonValue, decidedBlocks } from './slack-blocks.ts';

export const SLACK = 'slack';

/** How long a press through a link or app secrets someone else just set counts as their credential. */
const DEFAULT_CHANGE_HOLD_MS = 24 * 3_600_000;

/** The parts of a `block_actions` payload opsgate reads (Slack's "Handling user interaction"). */
export interface SlackBlockAction {
  readonly userId: string;
  readonly teamId?: string;
  readonly actionId: string;
  readonly value: ButtonValue;
  readonly responseUrl?: string;
}

/**
 * Approvals in Slack: a request posts a Block Kit message (the readable preview, Approve / Reject)
 * to the configured channel or each eligible approver's DM; a button press decides through
 * `Runtime.decide` as the linked opsgate user with `channel: 'slack'`; every decision, from any
 * door, updates the message to say who decided.
 */
export class SlackIntegration {
  readonly #runtime: Runtime;
  readonly #store: ChatIntegrationStore;
  readonly #users: UserRepository;
  readonly #logger: Logger | undefined;
  readonly #slackApiUrl: string | undefined;
  readonly #publicUrl: string | undefined;
  readonly #changeHoldMs: number;
  readonly #linkHoldMs: number;
  readonly #now: () => Date;
  /** The workspace the bot token belongs to, by bot token (Slack's `auth.test`). */
  readonly #workspaces = new Map<string, string>();
  readonly #inFlight = new Set<Promise<void>>();
  /** Calls decided by a Slack button in this process: their message says "in Slack". */
  readonly #decidedInSlack = new Set<string>();

  constructor(deps: {
    runtime: Runtime;
    store: ChatIntegrationStore;
    users: UserRepository;
    logger?: Logger;
    slackApiUrl?: string;
    publicUrl?: string;
    /** Default 24 hours (see `ChatIntegrationOptions.changeHoldMs`). */
    changeHoldMs?: number;
    /** Default: for as long as the link stands (see `ChatIntegrationOptions.linkHoldMs`). */
    linkHoldMs?: number;
    now?: () => Date;
  }) {
    this.#runtime = deps.runtime;
    this.#store = deps.store;
    this.#users = deps.users;
    this.#logger = deps.logger;
    this.#slackApiUrl = deps.slackApiUrl;
    this.#publicUrl = deps.publicUrl;
    this.#changeHoldMs = deps.changeHoldMs ?? DEFAULT_CHANGE_HOLD_MS;
    this.#linkHoldMs = deps.linkHoldMs ?? Number.POSITIVE_INFINITY;
    this.#now = deps.now ?? (() => new Date());
  }

  /** Slack's client, loaded on first use: most servers never set Slack up and should not pay its import at start-up. */
  async client(settings: SlackSettings): Promise<WebClient> {
    const { WebClient } = await import('@slack/web-api');
    return new WebClient(settings.botToken, {
      ...(this.#slackApiUrl ? { slackApiUrl: this.#slackApiUrl } : {}),
      retryConfig: { retries: 2, factor: 2, minTimeout: 200 },
      timeout: 10_000,
    });
  }

  /** Hears every session's live events; posts requests and updates messages beside the turn, never blocking it. */
  onEvent(event: SessionEvent): void {
    if (event.type === 'interrupt' && (event.data as { type?: string }).type === 'approval')
      this.#track(this.#post(event.sessionId, event.data as ApprovalInterrupt));
    else if (event.type === 'decision') this.#track(this.#markDecided(event.data as { callId?: string; decision?: string; by?: string }));
  }

  /** Waits for the posts and updates under way (tests, shutdown). */
  async drain(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  /**
   * Sends a link code to a Slack member's direct messages: reading it proves the member is the
   * person who asked (signed in to opsgate) for the link. False when Slack is not set up.
   */
  async sendLinkCode(slackUserId: string, username: string, code: string): Promise<boolean> {
    const settings = await this.#settings();
    if (!settings) return false;
    const client = await this.client(settings.slack);
    await client.chat.postMessage({
      channel: slackUserId,
      text: `Your opsgate link code is ${code}. Enter it in opsgate, signed in as ${username}, within 10 minutes to link this Slack account. If you did not ask for it, ignore this message.`,
      unfurl_links: false,
    });
    return true;
  }

  /**
   * A notice for admins, without buttons (e.g. an MCP gateway tool whose definition changed): to
   * the configured channel, else to the direct messages of the named admins who linked Slack.
   */
  notice(text: string, admins: readonly string[]): void {
    this.#track(this.#notice(text, admins));
  }

  async #notice(text: string, admins: readonly string[]): Promise<void> {
    const settings = await this.#settings();
    if (!settings) return;
    const client = await this.client(settings.slack);
    const targets = settings.slack.channel ? [settings.slack.channel] : await this.#approverIds(client, admins);
    for (const channel of targets) await client.chat.postMessage({ channel, text, unfurl_links: false });
  }

  /** A verified button press: decide as the linked user, or tell the presser why not (only they see it). */
  handleAction(action: SlackBlockAction): void {
    this.#track(this.#decide(action));
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.#logger?.warn({ err: error }, 'slack integration step failed'));
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
  }

  async #settings(): Promise<{ slack: SlackSettings; publicUrl: string } | undefined> {
    const slack = await this.#store.settings<SlackSettings>('slack');
    if (!slack?.botToken) return undefined;
    return { slack, publicUrl: await linkAddress(this.#store, this.#publicUrl) };
  }

  /** Slack member ids of the approvers: the explicit link, else looked up by the linked e-mail. */
  async #approverIds(client: WebClient, usernames: readonly string[]): Promise<string[]> {
    const links = await this.#store.links(SLACK);
    const ids: string[] = [];
    for (const username of usernames) {
      const user = await this.#users.findByName(username);
      const link = links.find((l) => l.userId === user?.id);
      if (link?.externalId) ids.push(link.externalId);
      else if (link?.email) {
        const found = await client.users.lookupByEmail({ email: link.email }).catch(() => undefined);
        if (found?.user?.id) ids.push(found.user.id);
      }
    }
    return ids;
  }

  async #post(sessionId: string, interrupt: ApprovalInterrupt): Promise<void> {
    const settings = await this.#settings();
    if (!settings) return;
    const client = await this.client(settings.slack);
    const digest = approvalDigest(interrupt);
    const targets = settings.slack.channel ? [settings.slack.channel] : await this.#approverIds(client, interrupt.eligibleApprovers);
    for (const channel of targets) {
      const posted = await client.chat.postMessage({
        channel,
        text: approvalFallback(digest),
        blocks: approvalRequestBlocks(digest, sessionId, interrupt.callId, settings.publicUrl),
        unfurl_links: false,
      });
      if (posted.ts && posted.channel)
        await this.#store.rememberMessage({
          call_id: interrupt.callId,
          provider: SLACK,
          channel: posted.channel,
          ts: posted.ts,
          session_id: sessionId,
          digest: JSON.stringify(digest),
        });
    }
  }

  async #markDecided(data: { callId?: string; decision?: string; by?: string }): Promise<void> {
    if (!data.callId) return;
    const messages = await this.#store.messagesFor(data.callId, SLACK);
    if (messages.length === 0) return;
    const settings = await this.#settings();
    if (!settings) return;
    const verb =
      data.decision === 'approve' || data.decision === 'modify'
        ? '✅ Approved'
        : data.decision === 'withdraw'
          ? '↩️ Withdrawn'
          : data.decision === 'replan'
            ? '🔁 Voided for re-planning'
            : '❌ Rejected';
    const outcome = `${verb} by ${data.by ?? 'someone'}${this.#decidedInSlack.has(data.callId) ? ' in Slack' : ' in opsgate'}`;
    this.#decidedInSlack.delete(data.callId);
    const client = await this.client(settings.slack);
    for (const message of messages) {
      const digest = JSON.parse(message.digest) as ApprovalDigest;
      await client.chat.update({
        channel: message.channel,
        ts: message.ts,
        text: `${outcome}: ${digest.title}`,
        blocks: decidedBlocks(digest, message.session_id, settings.publicUrl, outcome),
      });
    }
  }

  /** The Slack workspace (team id) the app is installed in, asked once per bot token. */
  async #workspaceOf(client: WebClient, botToken: string): Promise<string | undefined> {
    const known = this.#workspaces.get(botToken);
    if (known) return known;
    const answer = await client.auth.test().catch(() => undefined);
    if (answer?.team_id) this.#workspaces.set(botToken, answer.team_id);
    return answer?.team_id;
  }

  /** Someone other than `username` set this within `holdMs`: a press through it is a credential they issued. */
  #recentChangeBy(username: string, by: string | undefined, at: string | undefined, holdMs: number): string | undefined {
    if (!by || !at || by === username) return undefined;
    return this.#now().getTime() - Date.parse(at) < holdMs ? by : undefined;
  }

  /**
   * The opsgate user a Slack member acts as, by the identity rules every door applies: the explicit
   * link, else the e-mail Slack has confirmed; never a disabled account, never from another
   * workspace. When someone else set the link (for as long as it stands, by default: only the
   * person's own, code-confirmed link approves), or the app's secrets within the hold (whoever holds
   * the signing secret can sign a press as anyone), the identity names them as its issuer, so the
   * policy refuses its approvals of other people's calls.
   */
  async #identityOf(client: WebClient, action: SlackBlockAction, settings: SlackSettings): Promise<Identity | string> {
    const workspace = await this.#workspaceOf(client, settings.botToken);
    if (!workspace || action.teamId !== workspace)
      return `This press came from another Slack workspace (${action.teamId ?? 'none'}); opsgate takes decisions only from the workspace its app is installed in. Decide in opsgate.`;
    const links = await this.#store.links(SLACK);
    let link = links.find((l) => l.externalId === action.userId);
    if (!link) {
      const info = await client.users.info({ user: action.userId }).catch(() => undefined);
      const email = info?.user?.profile?.email?.toLowerCase();
      // Only an address Slack has confirmed proves the person; an unconfirmed one could be anyone's.
      if (email && info?.user?.is_email_confirmed === true) link = links.find((l) => l.email === email);
    }
    if (!link)
      return 'Your Slack account is not linked to an opsgate user, so you cannot decide here. Link it yourself in opsgate (Hosts & tokens, or Admin, → Your Slack account), or decide in opsgate.';
    const user = await this.#users.findById(link.userId);
    const issuedBy =
      user &&
      (this.#recentChangeBy(user.username, link.linkedBy, link.linkedAt, this.#linkHoldMs) ??
        this.#recentChangeBy(user.username, settings.credentialsChangedBy, settings.credentialsChangedAt, this.#changeHoldMs));
    const identity = identityOf(user, { channel: 'slack', ...(issuedBy ? { issuedBy } : {}) });
    return (
      identity ??
      `The opsgate account ${user?.username ?? ''} linked to your Slack account is disabled, so you cannot decide here. Ask an opsgate administrator.`
    );
  }

  async #decide(action: SlackBlockAction): Promise<void> {
    const settings = await this.#settings();
    if (!settings) return;
    const client = await this.client(settings.slack);
    const actor = await this.#identityOf(client, action, settings.slack);
    if (typeof actor === 'string') {
      await this.#reply(action, actor);
      return;
    }
    const { sessionId, callId } = action.value;
    this.#decidedInSlack.add(callId);
    try {
      await this.#runtime.decide(
        sessionId,
        action.actionId === APPROVE_ACTION
          ? { type: 'approve', callId }
          : { type: 'reject', callId, reason: `rejected in Slack by ${actor.username}` },
        actor,
      );
    } catch (error) {
      this.#decidedInSlack.delete(callId);
      await this.#reply(action, error instanceof Error ? error.message : 'opsgate could not record this decision; decide in opsgate.');
    }
  }

  /** An ephemeral answer to the presser only, through the interaction's `response_url`. */
  async #reply(action: SlackBlockAction, text: string): Promise<void> {
    if (!action.responseUrl) return;
    await fetch(action.responseUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
      signal: AbortSignal.timeout(10_000),
    });
  }
}
