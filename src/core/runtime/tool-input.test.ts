import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/index.ts';
import { bindIdentity, prepareInput } from './tool-input.ts';

const owner = { identity: { userId: 7, username: 'alice', roles: ['user'] } };
const grant = defineTool({
  name: 'grant',
  description: 'grant',
  input: z.object({ user_id: z.number(), username: z.string(), access: z.string().min(1), days: z.number().int().default(30) }),
  mutability: 'mutable',
  identity: { userId: 'user_id', username: 'username' },
  execute: async () => 0,
});
const byNameOnly = defineTool({
  name: 'by_name',
  description: 'by name',
  input: z.object({ username: z.string() }),
  mutability: 'read-only',
  identity: { username: 'username' },
  execute: async () => 0,
});
const unbound = defineTool({
  name: 'plain',
  description: 'plain',
  input: z.object({ n: z.number() }),
  mutability: 'read-only',
  execute: async () => 0,
});

describe('bindIdentity', () => {
  it('fills the identity fields from the session, and leaves a tool without a binding as it was', () => {
    expect(bindIdentity(grant, { access: 'X' }, owner)).toEqual({ access: 'X', user_id: 7, username: 'alice' });
    expect(bindIdentity(grant, { access: 'X', user_id: null, username: 'alice' }, owner)).toEqual({
      access: 'X',
      user_id: 7,
      username: 'alice',
    });
    expect(bindIdentity(grant, { access: 'X', user_id: '7' }, owner)).toMatchObject({ user_id: 7 });
    expect(bindIdentity(byNameOnly, {}, owner)).toEqual({ username: 'alice' });
    const raw = { n: 1 };
    expect(bindIdentity(unbound, raw, owner)).toBe(raw);
  });

  it('refuses a value naming someone else, saying what was given and whose session it is', () => {
    for (const raw of [{ user_id: 8 }, { username: 'mallory' }]) {
      const error = (() => {
        try {
          return bindIdentity(grant, { access: 'X', ...raw }, owner);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toMatchObject({ code: 'IDENTITY_MISMATCH' });
      expect(String((error as Error).message)).toContain(`${Object.keys(raw)[0]}=${Object.values(raw)[0]}`);
      expect(String((error as Error).message)).toContain('alice (7)');
    }
  });
});

describe('prepareInput', () => {
  const invalid = (rawInput: unknown) => {
    try {
      prepareInput(grant, rawInput, owner);
    } catch (error) {
      return error as { code: string; message: string };
    }
    throw new Error('expected a refusal');
  };

  it('parses a JSON string, binds the identity and applies the schema (defaults included)', () => {
    expect(prepareInput(grant, '{"access":"READ"}', owner)).toEqual({ access: 'READ', user_id: 7, username: 'alice', days: 30 });
    expect(prepareInput(grant, { access: 'READ', days: 3 }, owner)).toEqual({ access: 'READ', user_id: 7, username: 'alice', days: 3 });
    expect(prepareInput(byNameOnly, '   ', owner)).toEqual({ username: 'alice' });
    expect(prepareInput(byNameOnly, '', owner)).toEqual({ username: 'alice' });
  });

  it('refuses input that is not JSON, or not a JSON object, with what to do', () => {
    expect(invalid('{not json')).toMatchObject({
      code: 'INVALID_TOOL_INPUT',
      message: 'The arguments for grant are invalid: the input is not valid JSON. Fix them and propose the call again.',
    });
    for (const rawInput of [null, 5, '5', '"text"', '[1]', [], 'null'])
      expect(invalid(rawInput).message).toBe(
        'The arguments for grant are invalid: the input must be a JSON object. Fix them and propose the call again.',
      );
  });

  it('names each field the schema refuses, and "(input)" for the whole object', () => {
    expect(invalid({ access: '', days: 1.5 }).message).toMatch(/^The arguments for grant are invalid: access: .+; days: .+\. Fix them/);
    const whole = defineTool({
      name: 'whole',
      description: 'whole',
      input: z.object({ a: z.number().optional() }).refine((value) => value.a !== undefined, 'give a'),
      mutability: 'read-only',
      execute: async () => 0,
    });
    expect(() => prepareInput(whole, {}, owner)).toThrow('The arguments for whole are invalid: (input): give a.');
  });
});
