import { createHmac, timingSafeEqual } from 'node:crypto';

/** Headers of every webhook delivery. */
export const SIGNATURE_HEADER = 'x-opsgate-signature';
export const TIMESTAMP_HEADER = 'x-opsgate-timestamp';
export const DELIVERY_HEADER = 'x-opsgate-delivery';
export const EVENT_HEADER = 'x-opsgate-event';

/**
 * `sha256=<hex>`: HMAC-SHA256 with the shared secret over `<timestamp>.<raw body>`, so a receiver
 * can refuse replays older than it accepts (the timestamp is in `x-opsgate-timestamp`, seconds).
 */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** What a receiver does: recompute the signature and compare in constant time. */
export function verifyWebhookSignature(secret: string, timestamp: string, body: string, signature: string): boolean {
  const expected = Buffer.from(signWebhook(secret, timestamp, body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
