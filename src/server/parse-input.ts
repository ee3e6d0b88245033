import type { z } from 'zod';
import { ServerErrors } from './server-errors.ts';

/** Parses a request part with its zod schema; a mismatch becomes a 400 naming every bad field. */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const detail = result.error.issues.map((issue) => `${[where, ...issue.path.map(String)].join('.')}: ${issue.message}`).join('; ');
  throw ServerErrors.INVALID_REQUEST({ detail });
}
