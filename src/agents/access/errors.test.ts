import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listErrorCodes } from '../../core/errors/index.ts';
import './errors.ts';
import './service/errors.ts';

describe('access error codes', () => {
  it('every ACCESS_ code is documented in the README', () => {
    const readme = readFileSync(join(import.meta.dirname, 'service', 'README.md'), 'utf8');
    const codes = [...listErrorCodes().keys()].filter((code) => code.startsWith('ACCESS_'));
    expect(codes.length).toBeGreaterThan(20);
    for (const code of codes) expect(readme, code).toContain(`\`${code}\``);
  });

  it('the tool messages are the spec text verbatim', () => {
    const spec = (code: string) => listErrorCodes().get(code)?.message;
    expect(spec('ACCESS_BACKEND_TIMEOUT')).toBe('Backend API is not responding');
    expect(spec('ACCESS_BACKEND_REFUSED')).toBe('Backend API is unavailable');
    expect(spec('ACCESS_BACKEND_DNS')).toBe('Cannot reach backend API');
    expect(spec('ACCESS_HTTP_FORBIDDEN')).toBe("You don't have permission for this operation");
    expect(spec('ACCESS_HTTP_NOT_FOUND')).toBe('Resource not found');
    expect(spec('ACCESS_HTTP_CONFLICT')).toBe('You already have this access');
    expect(spec('ACCESS_HTTP_SERVER_ERROR')).toBe('Backend API error, please try again');
    expect(spec('ACCESS_TOOL_USER_NOT_FOUND')).toBe('User not found');
    expect(spec('ACCESS_TOOL_AUTH_FAILED')).toBe('Authentication failed');
    expect(spec('ACCESS_TOOL_BACKEND_UNAVAILABLE')).toBe('Backend API unavailable');
    expect(spec('ACCESS_TOOL_ACCESS_NOT_FOUND')).toBe('Access not found: {accessName}');
    expect(spec('ACCESS_TOOL_ALREADY_ASSIGNED')).toBe('User already has this access');
  });
});
