import { describe, expect, it } from 'vitest';
import { defineErrorCodes, OpsgateError } from './opsgate-error.ts';

const TestErrors = defineErrorCodes({
  TEST_ZONE_NOT_FOUND: { status: 404, message: 'There is no zone "{zone}". Use one of: {zones}.' },
  TEST_PLAIN: { status: 400, message: 'Something plain went wrong. Try again.' },
});

describe('error codes declared with defineErrorCodes', () => {
  it('fill the message from the fields and keep the fields typed on the error', () => {
    const error = TestErrors.TEST_ZONE_NOT_FOUND({ zone: 'example.org', zones: 'example.com' });
    expect(OpsgateError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'TEST_ZONE_NOT_FOUND', status: 404, fields: { zone: 'example.org' } });
    expect(error.message).toBe('There is no zone "example.org". Use one of: example.com.');
    expect(TestErrors.TEST_PLAIN().message).toBe('Something plain went wrong. Try again.');
  });

  it('make a forgotten template field a type error (tsc checks these lines), which would otherwise print {zones}', () => {
    // @ts-expect-error `zones` is named by the message and missing
    const forgotten = TestErrors.TEST_ZONE_NOT_FOUND({ zone: 'example.org' });
    expect(forgotten.message).toContain('{zones}');
    // @ts-expect-error the message names fields, so they cannot be left out
    expect(() => TestErrors.TEST_ZONE_NOT_FOUND()).not.toThrow();
  });
});
