import type { ChatCommonSettings, ChatIntegrationStore } from './chat-integration-store.ts';

/**
 * The address links in chat messages open: the one an admin saved, else the server's own
 * (`OPSGATE_PUBLIC_URL`). Empty only when neither is known; then messages carry no link.
 */
export async function linkAddress(store: ChatIntegrationStore, fallback: string | undefined): Promise<string> {
  return (await store.settings<ChatCommonSettings>('common'))?.publicUrl || fallback || '';
}
