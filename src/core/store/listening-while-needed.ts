import type { StoreNotifications } from './open-store.ts';

/** How long a process keeps listening after its last follower left, so a reconnecting browser does not reopen the connection. */
const LINGER_MS = 10_000;

/**
 * LISTENs on a channel only while something in this process needs what it carries. PostgreSQL
 * (≤ 17) wakes every listening connection of a database for every NOTIFY, whatever the channel,
 * and each wake is a transaction of its own: a connection that listens for nobody costs one per
 * commit of every replica. Without notifications (SQLite) it does nothing.
 */
export class ListeningWhileNeeded {
  readonly #notifications: StoreNotifications | undefined;
  readonly #channel: string;
  readonly #onPayload: (payload: string) => void;
  /** Set while listening, or starting to; resolves to how to stop. */
  #listener: Promise<(() => Promise<void>) | undefined> | undefined;
  #needs = 0;
  #lingering: NodeJS.Timeout | undefined;

  constructor(notifications: StoreNotifications | undefined, channel: string, onPayload: (payload: string) => void) {
    this.#notifications = notifications;
    this.#channel = channel;
    this.#onPayload = onPayload;
  }

  /** One more thing here needs the channel; listening starts if it had not. */
  need(): void {
    this.#needs += 1;
    clearTimeout(this.#lingering);
    if (!this.#notifications || this.#listener) return;
    // A failed start leaves nothing behind: the next need tries again.
    const started: Promise<(() => Promise<void>) | undefined> = this.#notifications.listen(this.#channel, this.#onPayload).catch(() => {
      if (this.#listener === started) this.#listener = undefined;
      return undefined;
    });
    this.#listener = started;
  }

  /** One thing no longer needs it; the last one stops listening after a linger. */
  release(): void {
    this.#needs -= 1;
    if (this.#needs > 0 || !this.#listener) return;
    clearTimeout(this.#lingering);
    this.#lingering = setTimeout(() => void this.#stop(), LINGER_MS);
    this.#lingering.unref();
  }

  /** Resolves once listening is up (at once when nothing needs it or there are no notifications). */
  async ready(): Promise<void> {
    await this.#listener;
  }

  async close(): Promise<void> {
    clearTimeout(this.#lingering);
    await this.#stop();
  }

  async #stop(): Promise<void> {
    const listener = this.#listener;
    this.#listener = undefined;
    const stop = await listener;
    await stop?.();
  }
}
