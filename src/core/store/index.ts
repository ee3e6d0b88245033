export { ListeningWhileNeeded } from './listening-while-needed.ts';
export { runMigrations, type StoreDialectName, type StoreMigration } from './migration.ts';
export {
  type AuditAnchorConfig,
  type DurableCommits,
  openStore,
  resolveDataDir,
  type Store,
  type StoreNotifications,
  type StoreOptions,
} from './open-store.ts';
export { COMMIT_WITH_FLUSH } from './prepared-statements.ts';
export type { CoreDatabase, FeedbackTable, UsersTable } from './schema.ts';
export { SlotBatcher } from './slot-batcher.ts';
export { executeByShape, insertRows, type ShapeDb } from './statement-shapes.ts';
export { isStoreError, isStoreUnavailable } from './store-unavailable.ts';
export {
  type CommitRider,
  observeTransactions,
  rideOnNextCommit,
  runInTransaction,
  StaleWriteError,
  shareCommitSlots,
  type TransactionKind,
  type TransactionObserver,
  UnitOfWork,
  type Write,
  type WriteTransaction,
} from './unit-of-work.ts';
export { updateOneRow } from './update-one-row.ts';
