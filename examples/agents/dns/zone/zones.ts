import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DnsErrors } from '../errors.ts';

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export interface DnsRecord {
  readonly zone: string;
  readonly name: string;
  readonly type: RecordType;
  readonly value: string;
}

/** The zone a new folder starts with, so the agent has something to read. */
const SEED: ReadonlyArray<Omit<DnsRecord, 'zone'>> = [
  { name: 'www', type: 'A', value: '192.0.2.10' },
  { name: '@', type: 'MX', value: '10 mail.example.com.' },
  { name: '@', type: 'NS', value: 'ns1.example.com.' },
];

/** Zones kept as one JSON file each (`<zone>.json`: a list of records) in a folder. */
export class Zones {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  names(): string[] {
    return readdirSync(this.#dir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => file.slice(0, -'.json'.length))
      .sort();
  }

  /** The value of one record, or undefined when the zone has none of that name and type. */
  record(zone: string, name: string, type: RecordType): string | undefined {
    return this.#read(zone).find((r) => r.name === name && r.type === type)?.value;
  }

  /** Sets one record and says what it was before. */
  set(change: DnsRecord): { before: string | undefined; after: string } {
    const records = this.#read(change.zone);
    const before = records.find((r) => r.name === change.name && r.type === change.type)?.value;
    const others = records.filter((r) => !(r.name === change.name && r.type === change.type));
    writeFileSync(
      this.#file(change.zone),
      `${JSON.stringify([...others, { name: change.name, type: change.type, value: change.value }], null, 2)}\n`,
    );
    return { before, after: change.value };
  }

  /** Binds an approval to the record as shown: a change made in between voids it. */
  digest(change: DnsRecord): string {
    const before = this.record(change.zone, change.name, change.type) ?? '';
    return createHash('sha256')
      .update(JSON.stringify([change, before]))
      .digest('hex');
  }

  #file(zone: string): string {
    return join(this.#dir, `${zone}.json`);
  }

  #read(zone: string): Array<Omit<DnsRecord, 'zone'>> {
    if (!/^[a-z0-9.-]+$/i.test(zone) || !existsSync(this.#file(zone)))
      throw DnsErrors.DNS_ZONE_NOT_FOUND({ zone, zones: this.names().join(', ') || '(none)' });
    return JSON.parse(readFileSync(this.#file(zone), 'utf8')) as Array<Omit<DnsRecord, 'zone'>>;
  }
}

/** Opens the zones in `dir`, creating it with the zone example.com when it is new. */
export function openZones(dir: string): Zones {
  mkdirSync(dir, { recursive: true });
  if (readdirSync(dir).length === 0) writeFileSync(join(dir, 'example.com.json'), `${JSON.stringify(SEED, null, 2)}\n`);
  return new Zones(dir);
}
