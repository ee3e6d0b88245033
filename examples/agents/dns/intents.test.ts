import { describe, expect, it } from 'vitest';
import { dnsInterpreter } from './intents.ts';

const turn = (userText: string, steps: Array<{ toolName: string; input: unknown; output: unknown; isError: boolean }> = []) => ({
  userText,
  steps,
  history: [],
  tools: [],
  system: '',
});

describe('dns offline intents', () => {
  it('turns "lookup" and "set" into the tool calls a model would make', () => {
    expect(dnsInterpreter.next(turn('lookup example.com www a'))).toEqual({
      toolCalls: [{ toolName: 'lookup_record', input: { zone: 'example.com', name: 'www', type: 'A' } }],
    });
    expect(dnsInterpreter.next(turn('set example.com www A 192.0.2.20'))).toEqual({
      toolCalls: [{ toolName: 'change_record', input: { zone: 'example.com', name: 'www', type: 'A', value: '192.0.2.20' } }],
    });
  });

  it('answers with what the last call returned, and does not guess at other text', () => {
    expect(
      dnsInterpreter.next(
        turn('lookup example.com www A', [{ toolName: 'lookup_record', input: {}, output: { value: '192.0.2.10' }, isError: false }]),
      ),
    ).toEqual({
      text: '{"value":"192.0.2.10"}',
    });
    expect(dnsInterpreter.next(turn('what is the weather'))).toBeUndefined();
  });
});
