import { CoreErrors } from '../../core/errors/index.ts';
import type { ChatIntegrationOptions } from './index.ts';

/**
 * The chat integrations' start-up settings from the environment:
 * - `OPSGATE_SLACK_API_URL`: Slack's Web API base (default `https://slack.com/api/`), for a
 *   Slack-compatible server such as a test double or an egress proxy;
 * - `OPSGATE_PUBLIC_URL`: the address links in Slack and Teams messages open when the admin has
 *   not saved one, so a card never goes out without "Review and decide".
 */
export function chatOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): ChatIntegrationOptions {
  const slackApiUrl = env.OPSGATE_SLACK_API_URL?.trim();
  if (slackApiUrl && !/^https?:\/\/[^\s]+$/i.test(slackApiUrl))
    throw CoreErrors.CONFIG_INVALID({
      detail: `OPSGATE_SLACK_API_URL must be an http(s) address such as https://slack.com/api/, got "${slackApiUrl}"`,
    });
  const publicUrl = env.OPSGATE_PUBLIC_URL?.trim();
  return {
    // The client joins method names to the base, so it must end with a slash.
    ...(slackApiUrl ? { slackApiUrl: slackApiUrl.endsWith('/') ? slackApiUrl : `${slackApiUrl}/` } : {}),
    ...(publicUrl && /^https?:\/\//i.test(publicUrl) ? { publicUrl } : {}),
  };
}
