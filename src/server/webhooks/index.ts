export { webhookOptionsFromEnv } from './webhook-config.ts';
export { WebhookDispatcher, type WebhookOptions } from './webhook-dispatcher.ts';
export {
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyWebhookSignature,
} from './webhook-signature.ts';
