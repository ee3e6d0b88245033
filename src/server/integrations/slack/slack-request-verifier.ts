/** Slack's own window for a request's timestamp (Bolt refuses older ones too). */
const REPLAY_WINDOW_MS = 5 * 60_000;

/**
 * Checks a request the way Slack documents it ("Verifying requests from Slack"): `v0=` + HMAC-SHA256
 * of `v0:{timestamp}:{raw body}` with the app's signing secret, and a timestamp within 5 minutes —
 * Bolt's own `isValidSlackRequest` does both. On top, a signature is accepted once: a captured
 * request sent again inside the window is a replay and is refused (per process; a button press
 * that arrives twice at different replicas is still decided once, because a decided call cannot
 * be decided again).
 */
export class SlackRequestVerifier {
  readonly #seen = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async verify(signingSecret: string, rawBody: string, signature: string | undefined, timestamp: string | undefined): Promise<boolean> {
    if (!signature || !timestamp || !/^\d+$/.test(timestamp)) return false;
    // Loaded on the first press, not at start-up.
    const { isValidSlackRequest } = await import('@slack/bolt/dist/receivers/verify-request.js');
    const now = this.#now();
    const valid = isValidSlackRequest({
      signingSecret,
      body: rawBody,
      headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': Number(timestamp) },
      nowMilliseconds: now,
    });
    if (!valid) return false;
    for (const [seen, until] of this.#seen) if (until < now) this.#seen.delete(seen);
    if (this.#seen.has(signature)) return false;
    this.#seen.set(signature, now + REPLAY_WINDOW_MS);
    return true;
  }
}
