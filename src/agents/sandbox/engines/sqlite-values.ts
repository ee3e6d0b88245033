import type { JsonValue, SqlParam } from './engine.ts';

/**
 * How SQLite values cross into JSON and back, shared by the engine (in process) and the read
 * worker (its child process). A module of their own so that the worker does not import the
 * engine that starts it.
 */
export function toJsonValue(value: unknown): JsonValue {
  if (value === null || typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return { blobHex: Buffer.from(value).toString('hex') };
  return String(value);
}

export function toParams(params: readonly SqlParam[]): Array<string | number | null> {
  return params.map((param) => (typeof param === 'boolean' ? (param ? 1 : 0) : param));
}
