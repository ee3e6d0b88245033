import { describe, expect, it } from 'vitest';
import { UsageError } from '../command.ts';
import { chatOptions } from './chat-options.ts';

describe('opsgate chat options', () => {
  it('--agent-option reaches the agent setup; --option stays a session option', () => {
    expect(chatOptions({ 'agent-option': ['zonesDir=/tmp/zones'], option: ['hostId=1', 'dry=true'] })).toEqual({
      agentOptions: { zonesDir: '/tmp/zones' },
      sessionOptions: { hostId: 1, dry: true },
    });
  });

  it('--db is the agent option db; --agent-mode and --auto-approve are session options', () => {
    expect(chatOptions({ db: 'demo.db', 'agent-mode': true, 'auto-approve': true })).toEqual({
      agentOptions: { db: 'demo.db' },
      sessionOptions: { agentMode: true, autoApprove: true },
    });
  });

  it('refuses a pair without a key, and --auto-approve without --agent-mode', () => {
    expect(() => chatOptions({ 'agent-option': ['=x'] })).toThrow(new UsageError('--agent-option takes KEY=VALUE, got "=x"'));
    expect(() => chatOptions({ 'auto-approve': true })).toThrow(UsageError);
  });
});
