export { webhookOptionsFromEnv } from './webhook-config.ts';
export { type WebhookDelivery, WebhookDeliveryLog, webhookDeliveriesMigration } from './webhook-deliveries.ts';
export { WebhookDispatcher, type WebhookEvent, type WebhookOptions, webhookEventFor } from './webhook-dispatcher.ts';
export {
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
  verifyWebhookSignature,
} from './webhook-signature.ts';
