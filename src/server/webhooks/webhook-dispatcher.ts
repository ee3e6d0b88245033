import { randomUUID } from 'node:crypto';
import { ExponentialBackoff, handleAll, retry } from 'cockatiel';
import type { Logger } from 'pino';
import type { ApprovalInterrupt, SessionEvent, SessionEventFeed } from '../../core/runtime/index.ts';
import type { Store } from '../../core/store/index.ts';
import { WebhookDeliveryLog, webhookDeliveriesMigration } from './webhook-deliveries.ts';
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER } from './webhook-signature.ts';

export interface WebhookOptions {
  /** Receivers (a relay to Slack, Teams, PagerDuty…). */
  readonly urls: readonly string[];
  /** Shared secret of the HMAC-SHA256 signature. */
  readonly secret: string;
  /** Attempts per delivery, the first included. Default 5. */
  readonly attempts?: number;
  /** First backoff delay in milliseconds; doubles each retry. Default 500. */
  readonly initialDelayMs?: number;
  /** Longest backoff delay in milliseconds. Default 30,000. */
  readonly maxDelayMs?: number;
  /** Per attempt, in milliseconds. Default 5,000. */
  readonly timeoutMs?: number;
}

/** The JSON body of a delivery. */
export type WebhookEvent =
  | {
      readonly id: string;
      readonly type: 'approval.requested';
      readonly createdAt: string;
      readonly sessionId: string;
      readonly approval: Pick<
        ApprovalInterrupt,
        | 'callId'
        | 'tool'
        | 'args'
        | 'risk'
        | 'requestedBy'
        | 'requestedAt'
        | 'policyId'
        | 'requiredApprovals'
        | 'approvals'
        | 'eligibleApprovers'
      > & { readonly expiresAt?: string };
    }
  | {
      readonly id: string;
      readonly type: 'approval.decided';
      readonly createdAt: string;
      readonly sessionId: string;
      readonly decision: Readonly<Record<string, unknown>>;
    }
  | {
      readonly id: string;
      /** An MCP gateway upstream changed a tool's definition: the tool is held back until an admin accepts it. */
      readonly type: 'tool_definition.changed';
      readonly createdAt: string;
      readonly change: {
        readonly upstream: string;
        readonly tool: string;
        readonly acceptedHash: string;
        readonly changedHash: string;
        /** Prompt-injection markers found in the new description. */
        readonly markers: readonly string[];
        /** Where an admin reviews and accepts it. */
        readonly reviewUrl?: string;
      };
    };

class DeliveryFailed extends Error {}

/** Turns a session's live event into a webhook event, or nothing when receivers need not hear of it. */
function webhookEventFor(event: SessionEvent, id: string): WebhookEvent | undefined {
  if (event.type === 'interrupt') {
    const interrupt = event.data as { type?: string };
    if (interrupt.type !== 'approval') return undefined;
    const a = event.data as ApprovalInterrupt;
    return {
      id,
      type: 'approval.requested',
      createdAt: event.createdAt,
      sessionId: event.sessionId,
      approval: {
        callId: a.callId,
        tool: a.tool,
        args: a.args,
        risk: a.risk,
        requestedBy: a.requestedBy,
        requestedAt: a.requestedAt,
        policyId: a.policyId,
        requiredApprovals: a.requiredApprovals,
        approvals: a.approvals,
        eligibleApprovers: a.eligibleApprovers,
        ...(a.expiresAt ? { expiresAt: a.expiresAt } : {}),
      },
    };
  }
  if (event.type === 'decision' && typeof event.data === 'object' && event.data !== null)
    return {
      id,
      type: 'approval.decided',
      createdAt: event.createdAt,
      sessionId: event.sessionId,
      decision: event.data as Record<string, unknown>,
    };
  return undefined;
}

/**
 * Posts approval events to every receiver: JSON, signed with HMAC-SHA256, retried with exponential
 * backoff (cockatiel), every delivery and attempt recorded in `webhook_deliveries`. A receiver
 * that stays down never blocks a turn: deliveries run beside the runtime.
 */
export class WebhookDispatcher {
  readonly #options: WebhookOptions;
  readonly #log: WebhookDeliveryLog;
  readonly #logger: Logger | undefined;
  readonly #now: () => Date;
  readonly #inFlight = new Set<Promise<void>>();
  #unsubscribe: (() => void) | undefined;

  /** Creates the `webhook_deliveries` table when missing, then the dispatcher. */
  static async create(
    store: Store,
    options: WebhookOptions,
    context: { logger?: Logger; now?: () => Date } = {},
  ): Promise<WebhookDispatcher> {
    await store.migrate([webhookDeliveriesMigration]);
    return new WebhookDispatcher(store, options, context);
  }

  constructor(store: Store, options: WebhookOptions, context: { logger?: Logger; now?: () => Date } = {}) {
    this.#options = options;
    this.#log = new WebhookDeliveryLog(store);
    this.#logger = context.logger;
    this.#now = context.now ?? (() => new Date());
  }

  get deliveries(): WebhookDeliveryLog {
    return this.#log;
  }

  /** Listens to every session's live events. */
  start(events: SessionEventFeed): void {
    this.#unsubscribe = events.subscribe('*', (event) => {
      const webhook = webhookEventFor(event, randomUUID());
      if (webhook) this.#track(this.dispatch(webhook));
    });
  }

  /** Delivers an event that is not a session's (e.g. a tool definition change) beside the runtime. */
  notify(event: WebhookEvent): void {
    this.#track(this.dispatch(event));
  }

  /** Delivers one event to every receiver; resolves when each delivery has succeeded or given up. */
  async dispatch(event: WebhookEvent): Promise<void> {
    const body = JSON.stringify(event);
    await Promise.all(this.#options.urls.map((url) => this.#deliver(url, event, body)));
  }

  /** Waits for the deliveries under way (tests, shutdown). */
  async drain(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  async close(): Promise<void> {
    this.#unsubscribe?.();
    await this.drain();
  }

  #track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => this.#logger?.warn({ err: error }, 'webhook delivery could not be recorded'));
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
  }

  async #deliver(url: string, event: WebhookEvent, body: string): Promise<void> {
    const id = randomUUID();
    await this.#log.start({ id, event: event.type, url, body, created_at: this.#now().toISOString() });
    const policy = retry(handleAll, {
      maxAttempts: (this.#options.attempts ?? 5) - 1,
      backoff: new ExponentialBackoff({ initialDelay: this.#options.initialDelayMs ?? 500, maxDelay: this.#options.maxDelayMs ?? 30_000 }),
    });
    let attempts = 0;
    try {
      await policy.execute(async () => {
        attempts += 1;
        const timestamp = String(Math.floor(this.#now().getTime() / 1000));
        let responseStatus: number | undefined;
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              [SIGNATURE_HEADER]: signWebhook(this.#options.secret, timestamp, body),
              [TIMESTAMP_HEADER]: timestamp,
              [DELIVERY_HEADER]: id,
              [EVENT_HEADER]: event.type,
            },
            body,
            signal: AbortSignal.timeout(this.#options.timeoutMs ?? 5000),
          });
          responseStatus = response.status;
          await response.body?.cancel();
          if (!response.ok) throw new DeliveryFailed(`the receiver answered ${response.status}`);
          await this.#log.attempt(id, attempts, { responseStatus });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          await this.#log.attempt(id, attempts, { ...(responseStatus !== undefined ? { responseStatus } : {}), error: message });
          throw error;
        }
      });
      await this.#log.finish(id, 'delivered', this.#now().toISOString());
    } catch (error) {
      this.#logger?.warn({ err: error, url, event: event.type, attempts }, 'webhook delivery failed after every attempt');
      await this.#log.finish(id, 'failed', this.#now().toISOString());
    }
  }
}
