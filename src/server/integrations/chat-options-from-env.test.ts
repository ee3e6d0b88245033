import { describe, expect, it } from 'vitest';
import { chatOptionsFromEnv } from './chat-options-from-env.ts';

describe('chat integration settings from the environment (issue 31: Slack and Teams for real)', () => {
  it('takes a Slack API base (with the slash the client needs) and the public address', () => {
    expect(chatOptionsFromEnv({ OPSGATE_SLACK_API_URL: 'http://127.0.0.1:9999/api', OPSGATE_PUBLIC_URL: 'https://ops.example' })).toEqual({
      slackApiUrl: 'http://127.0.0.1:9999/api/',
      publicUrl: 'https://ops.example',
    });
    expect(chatOptionsFromEnv({})).toEqual({});
  });

  it('refuses a Slack API base that is not an http(s) address, saying which variable', () => {
    expect(() => chatOptionsFromEnv({ OPSGATE_SLACK_API_URL: 'slack.internal' })).toThrow(
      /OPSGATE_SLACK_API_URL must be an http\(s\) address/,
    );
  });
});
