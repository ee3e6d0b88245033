/**
 * Reads SQLite session changesets (the binary format of the session extension, documented in
 * sqlite3session.h): which rows a transaction inserted, updated or deleted, with their values.
 */
type ChangeValue = null | number | string | { readonly blobHex: string } | { readonly bigint: string };

export interface RowChange {
  readonly table: string;
  readonly operation: 'insert' | 'update' | 'delete';
  /** Column values before the change: all columns for a delete; the key and changed columns for an update. */
  readonly before?: Readonly<Record<string, ChangeValue>>;
  /** Column values after the change: all columns for an insert; the changed columns for an update. */
  readonly after?: Readonly<Record<string, ChangeValue>>;
}

const OPERATIONS: Record<number, RowChange['operation']> = { 18: 'insert', 23: 'update', 9: 'delete' };
const UNDEFINED = Symbol('undefined');

class Reader {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  offset = 0;
  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  get done(): boolean {
    return this.offset >= this.#bytes.length;
  }
  byte(): number {
    if (this.offset >= this.#bytes.length) throw new Error('changeset ends early');
    return this.#bytes[this.offset++]!;
  }
  /** SQLite's varint: 7 bits per byte, high bit continues, the 9th byte carries 8 bits. */
  varint(): number {
    let value = 0;
    for (let i = 0; i < 8; i++) {
      const byte = this.byte();
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) return value;
    }
    return value * 256 + this.byte();
  }
  take(length: number): Uint8Array {
    if (this.offset + length > this.#bytes.length) throw new Error('changeset ends early');
    const slice = this.#bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }
  int64(): bigint {
    const value = this.#view.getBigInt64(this.offset, false);
    this.offset += 8;
    return value;
  }
  float64(): number {
    const value = this.#view.getFloat64(this.offset, false);
    this.offset += 8;
    return value;
  }
  cString(): string {
    const end = this.#bytes.indexOf(0, this.offset);
    if (end === -1) throw new Error('changeset table name is not terminated');
    const text = new TextDecoder().decode(this.#bytes.subarray(this.offset, end));
    this.offset = end + 1;
    return text;
  }
}

function readValue(reader: Reader): ChangeValue | typeof UNDEFINED {
  const type = reader.byte();
  switch (type) {
    case 0:
      return UNDEFINED;
    case 1: {
      const value = reader.int64();
      return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(value)
        : { bigint: value.toString() };
    }
    case 2:
      return reader.float64();
    case 3:
      return new TextDecoder().decode(reader.take(reader.varint()));
    case 4:
      return { blobHex: Buffer.from(reader.take(reader.varint())).toString('hex') };
    case 5:
      return null;
    default:
      throw new Error(`unknown changeset value type ${type}`);
  }
}

function readRecord(reader: Reader, columns: readonly string[]): Record<string, ChangeValue> {
  const record: Record<string, ChangeValue> = {};
  for (const column of columns) {
    const value = readValue(reader);
    if (value !== UNDEFINED) record[column] = value;
  }
  return record;
}

/**
 * Decodes a changeset into row changes. `columnsOf` names a table's columns in order (from
 * `PRAGMA table_info`); unknown tables get `c0, c1, …`.
 */
export function parseChangeset(bytes: Uint8Array, columnsOf: (table: string) => readonly string[] = () => []): RowChange[] {
  const reader = new Reader(bytes);
  const changes: RowChange[] = [];
  let table = '';
  let columns: string[] = [];
  while (!reader.done) {
    const marker = reader.byte();
    if (marker === 0x54) {
      const count = reader.varint();
      reader.take(count);
      table = reader.cString();
      const known = columnsOf(table);
      columns = Array.from({ length: count }, (_, index) => known[index] ?? `c${index}`);
      continue;
    }
    const operation = OPERATIONS[marker];
    if (!operation) throw new Error(`unknown changeset record type ${marker}`);
    reader.byte(); // the "indirect" flag
    if (operation === 'insert') changes.push({ table, operation, after: readRecord(reader, columns) });
    else if (operation === 'delete') changes.push({ table, operation, before: readRecord(reader, columns) });
    else changes.push({ table, operation, before: readRecord(reader, columns), after: readRecord(reader, columns) });
  }
  return changes;
}
