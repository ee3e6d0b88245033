import type { Clock } from '../../../core/agent/define-agent.ts';
import type { Store } from '../../../core/store/index.ts';
import { type AccessRow, CatalogRepository, type CatalogUser } from './catalog-repository.ts';

/** The catalog of the spec's examples, plus a few tagged for other teams. */
export const demoAccesses: ReadonlyArray<{ name: string; description: string; renewal_period: number | null; teams: readonly string[] }> = [
  { name: 'READ_DOCUMENTS', description: 'View documents in the system', renewal_period: null, teams: ['engineering', 'support', 'sales'] },
  { name: 'WRITE_DOCUMENTS', description: 'Create and edit documents', renewal_period: 90, teams: ['engineering', 'support'] },
  { name: 'DB_READ_DEV', description: 'Read the development database', renewal_period: null, teams: ['engineering'] },
  { name: 'DB_READ_STAGING', description: 'Read the staging database', renewal_period: null, teams: ['engineering'] },
  { name: 'DB_READ_PROD', description: 'Read the production database', renewal_period: 30, teams: ['engineering', 'data'] },
  { name: 'DB_WRITE_DEV', description: 'Write to the development database', renewal_period: null, teams: ['engineering'] },
  { name: 'DB_WRITE_PROD', description: 'Write to the production database', renewal_period: 14, teams: ['engineering'] },
  { name: 'DEPLOY_STAGING', description: 'Deploy services to staging', renewal_period: null, teams: ['engineering'] },
  { name: 'DEPLOY_PROD', description: 'Deploy services to production', renewal_period: 30, teams: ['engineering'] },
  { name: 'VPN_ACCESS', description: 'Connect to the corporate VPN', renewal_period: 365, teams: ['engineering', 'support', 'sales'] },
  { name: 'CRM_READ', description: 'View customer records in the CRM', renewal_period: null, teams: ['sales', 'support'] },
  { name: 'BILLING_ADMIN', description: 'Manage invoices and refunds', renewal_period: 90, teams: ['finance'] },
];

/** john_doe first, so that on a fresh store he is user 1 as in the spec's examples. */
const demoUsers: ReadonlyArray<{ readonly username: string; readonly teams: readonly string[] }> = [
  { username: 'john_doe', teams: ['engineering'] },
  { username: 'jane_smith', teams: ['engineering', 'data'] },
  { username: 'bob_wilson', teams: ['engineering', 'support'] },
  { username: 'fiona_finance', teams: ['finance'] },
];

export interface DemoSeed {
  readonly accesses: readonly AccessRow[];
  readonly users: readonly CatalogUser[];
  /** Rows this call created (0 when the demo data was there already). */
  readonly created: number;
}

/** Creates the demo catalog and users where missing. Idempotent; safe to call on every start. */
export async function seedAccessDemoData(store: Store, clock: Clock = { now: () => new Date() }): Promise<DemoSeed> {
  const repository = new CatalogRepository(store);
  let created = 0;
  const users: CatalogUser[] = [];
  for (const { username, teams } of demoUsers) {
    let user = await repository.findUserByUsername(username);
    if (!user) {
      user = await repository.createUser(username, clock.now(), teams).catch(async (error: unknown) => {
        const raced = await repository.findUserByUsername(username);
        if (raced) return raced;
        throw error;
      });
      created += 1;
    }
    users.push(user);
  }
  const accesses: AccessRow[] = [];
  for (const definition of demoAccesses) {
    let access = await repository.findAccess(definition.name);
    if (!access) {
      access = await repository.createAccess(definition, clock.now()).catch(async (error: unknown) => {
        const raced = await repository.findAccess(definition.name);
        if (raced) return raced;
        throw error;
      });
      created += 1;
    }
    accesses.push(access);
  }
  return { accesses, users, created };
}

/** The seed as a short table for a terminal. */
export function formatDemoTable(seed: DemoSeed): string {
  const lines = ['id  access            renewal  teams'];
  for (const a of seed.accesses) {
    lines.push(
      `${String(a.id).padEnd(3)} ${a.name.padEnd(17)} ${(a.renewal_period === null ? '-' : `${a.renewal_period}d`).padEnd(8)} ${a.teams.join(', ')}`,
    );
  }
  lines.push('', 'id  catalog user     teams');
  for (const u of seed.users) lines.push(`${String(u.id).padEnd(3)} ${u.username.padEnd(14)} ${u.teams.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The catalog user id of an opsgate login. Login users (core `users`) and catalog users
 * (`access_users`) are different tables; they are joined by username.
 */
export async function catalogUserIdFor(store: Store, username: string): Promise<number | undefined> {
  return (await new CatalogRepository(store).findUserByUsername(username))?.id;
}
