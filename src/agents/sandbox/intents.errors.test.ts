import { describe, expect, it } from 'vitest';
import { sandboxInterpreter } from './intents.ts';

/** Issue 22: "The write failed: {"error":…,"code":"SQL_FAILED"}" — a tool's error reads as its sentence, never as JSON. */
describe('sandbox answers name a failed write in words', () => {
  it('a tool error { error, code } becomes the error sentence', () => {
    const failed = {
      toolName: 'execute_write',
      input: { sql: 'DELETE FROM customers WHERE id = 1' },
      output: { error: 'The database rejected the statement: FOREIGN KEY constraint failed.', code: 'SQL_FAILED' },
      isError: true,
    };
    const answer = sandboxInterpreter.next({
      userText: 'DELETE FROM customers WHERE id = 1',
      steps: [failed],
      history: [],
      tools: [],
      system: '',
    });
    expect(answer).toEqual({ text: 'The write failed: The database rejected the statement: FOREIGN KEY constraint failed.' });
  });
});
