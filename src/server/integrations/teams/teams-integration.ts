import { ExponentialBackoff, handleAll, retry } from 'cockatiel';
import type { Logger } from 'pino';
import type { ApprovalInterrupt, SessionEvent } from '../../../core/runtime/index.ts';
import { approvalDigest } from '../approval-digest.ts';
import type { ChatIntegrationStore, TeamsSettings } from '../chat-integration-store.ts';
import { linkAddress } from '../link-address.ts';
import { teamsApprovalMessage } from './teams-card.ts';

/** Posts each approval request as an Adaptive Card to the configured Teams incoming webhook, retried with backoff. */
export class TeamsIntegration {
  readonly #store: ChatIntegrationStore;
  readonly #logger: Logger | undefined;
  readonly #publicUrl: string | undefined;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(deps: { store: ChatIntegrationStore; logger?: Logger; publicUrl?: string }) {
    this.#store = deps.store;
    this.#logger = deps.logger;
    this.#publicUrl = deps.publicUrl;
  }

  onEvent(event: SessionEvent): void {
    if (event.type !== 'interrupt' || (event.data as { type?: string }).type !== 'approval') return;
    const work = this.#post(event.sessionId, event.data as ApprovalInterrupt).catch((error: unknown) =>
      this.#logger?.warn({ err: error }, 'teams approval card could not be posted'),
    );
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }

  async drain(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all([...this.#inFlight]);
  }

  async #post(sessionId: string, interrupt: ApprovalInterrupt): Promise<void> {
    const teams = await this.#store.settings<TeamsSettings>('teams');
    if (!teams?.webhookUrl) return;
    const publicUrl = await linkAddress(this.#store, this.#publicUrl);
    const body = JSON.stringify(teamsApprovalMessage(approvalDigest(interrupt), sessionId, publicUrl));
    const policy = retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff({ initialDelay: 300, maxDelay: 5_000 }) });
    await policy.execute(async () => {
      const response = await fetch(teams.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.body?.cancel();
      if (!response.ok) throw new Error(`the Teams webhook answered ${response.status}`);
    });
  }
}
