import { beforeAll, describe, expect, it } from 'vitest';
import { importEveryErrorTable } from '../../scripts/document-errors.ts';
import { CoreErrors } from '../../src/core/errors/core-errors.ts';
import { listErrorCodes } from '../../src/core/errors/opsgate-error.ts';

/**
 * People read these messages in the web UI and the CLI. A raw session, call or transaction UUID
 * tells them nothing and hides what to do next (issue 13: "some errors show raw session UUIDs"),
 * so no message template fills one in; the ids stay in the error's fields for logs and clients.
 */
describe('error messages name no raw ids', () => {
  beforeAll(importEveryErrorTable);

  it('no template has a session, call or transaction id placeholder', () => {
    const withIds = [...listErrorCodes()]
      .filter(([, spec]) => /\{(sessionId|callId|transactionId)\}/.test(spec.message))
      .map(([code]) => code);
    expect(withIds).toEqual([]);
  });

  it('the session errors a person meets say what to do next and keep the id in fields only', () => {
    const sessionId = '3f2a9c4e-1b7d-4e8a-9c0f-5d6e7f8a9b0c';
    for (const error of [
      CoreErrors.SESSION_NOT_FOUND({ sessionId }),
      CoreErrors.SESSION_FORBIDDEN({ sessionId }),
      CoreErrors.SESSION_BUSY({ sessionId, interrupt: 'the approval of commit_transaction (answer yes or no)' }),
      CoreErrors.NO_PENDING_INTERRUPT({ sessionId }),
      CoreErrors.DECISION_MISMATCH({ given: sessionId, expected: sessionId }),
      CoreErrors.CALL_ALREADY_DECIDED({ callId: sessionId, tool: 'grant_access_to_user', status: 'executed' }),
    ]) {
      expect(error.message).not.toContain(sessionId);
      expect(error.message).toMatch(/\b(Open|Ask|Answer|Reload)\b/);
      expect(Object.values(error.fields)).toContain(sessionId);
    }
  });
});
