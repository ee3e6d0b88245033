export { type AuditActor, agentActor, approverActor, ruleActor, SYSTEM_ACTOR, userActor } from './actor.ts';
export {
  AUDIT_HASH_VERSION,
  AUDIT_JOURNAL_BATCH,
  type AuditEvent,
  type AuditEventInput,
  type AuditFilter,
  AuditLog,
  type AuditVerification,
  hashAuditEvent,
  observeCheckpoints,
} from './audit-log.ts';
export { canonicalJson } from './canonical-json.ts';
export type { AuditCheckpoint } from './checkpoints.ts';
export { AUDIT_EVENT_TYPES, type AuditEventType, CORE_AUDIT_EVENT_TYPES } from './event-types.ts';
