/**
 * The one error family of opsgate. Every error a person or a client can see is an
 * `OpsgateError` with a stable `code`, an HTTP status and a message that says what to do next.
 * Core codes and their messages live in `core-errors.ts`; agents add their own tables with
 * `defineErrorCodes` so that a test can check every code is documented.
 */
export interface ErrorSpec {
  /** HTTP status the server answers with. */
  readonly status: number;
  /** What happened and what to do next; `{name}` placeholders are filled from `fields`. */
  readonly message: string;
}

const marker = Symbol.for('opsgate.error');

export class OpsgateError extends Error {
  readonly [marker] = true;
  readonly code: string;
  readonly status: number;
  readonly fields: Readonly<Record<string, unknown>>;

  constructor(code: string, message: string, status = 500, fields: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = 'OpsgateError';
    this.code = code;
    this.status = status;
    this.fields = fields;
  }

  /** Works across module copies, like the AI SDK's `isInstance`. */
  static isInstance(value: unknown): value is OpsgateError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  toJSON(): { code: string; message: string; status: number; fields: Record<string, unknown> } {
    return { code: this.code, message: this.message, status: this.status, fields: { ...this.fields } };
  }
}

const registry = new Map<string, ErrorSpec>();

function fillTemplate(template: string, fields: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in fields ? String(fields[key]) : whole));
}

/** The `{name}` placeholders of a message template, as a union of names. */
type TemplateFields<Message extends string> = Message extends `${string}{${infer Field}}${infer Rest}`
  ? Field | TemplateFields<Rest>
  : never;

/**
 * A code's factory. Every `{name}` of its message is a required field, so a forgotten one is a
 * type error rather than a literal `{name}` in front of a person; more fields may ride along.
 */
export type ErrorFactory<Message extends string> = [TemplateFields<Message>] extends [never]
  ? (fields?: Record<string, unknown>, options?: ErrorOptions) => OpsgateError
  : (fields: Record<TemplateFields<Message>, unknown> & Record<string, unknown>, options?: ErrorOptions) => OpsgateError;

/**
 * Declares a table of error codes and returns a typed factory per code:
 * `const E = defineErrorCodes({ NOT_FOUND: { status: 404, message: 'No {thing}…' } }); throw E.NOT_FOUND({ thing })`.
 */
export function defineErrorCodes<const T extends Record<string, ErrorSpec>>(table: T): { [K in keyof T]: ErrorFactory<T[K]['message']> } {
  const factories = {} as Record<string, (fields?: Record<string, unknown>, options?: ErrorOptions) => OpsgateError>;
  for (const [code, spec] of Object.entries(table) as Array<[keyof T & string, ErrorSpec]>) {
    const existing = registry.get(code);
    if (existing && (existing.message !== spec.message || existing.status !== spec.status)) {
      throw new Error(`error code ${code} is declared twice with different specs`);
    }
    registry.set(code, spec);
    factories[code] = (fields = {}, options) => new OpsgateError(code, fillTemplate(spec.message, fields), spec.status, fields, options);
  }
  return factories as { [K in keyof T]: ErrorFactory<T[K]['message']> };
}

/** Every code declared so far (for documentation and the test that checks it). */
export function listErrorCodes(): ReadonlyMap<string, ErrorSpec> {
  return registry;
}
