import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './command.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** `node:util` parseArgs in strict mode, with its errors turned into one-line usage errors. */
export function parseCommandArgs<T extends Options>(args: readonly string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/, ''));
  }
}

/** Reads a positive integer option, or throws a usage error naming it. */
export function parseIntegerOption(name: string, value: string | undefined, fallback: number, min = 1, max = 65535): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, got "${value}"`);
  const parsed = Number(value);
  if (parsed < min || parsed > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${parsed}`);
  return parsed;
}
