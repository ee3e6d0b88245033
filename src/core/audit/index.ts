export { AuditLog, hashAuditEvent, AUDIT_HASH_VERSION, type AuditEvent, type AuditEventInput, type AuditFilter, type AuditVerification } from './audit-log.ts';
export { CORE_AUDIT_EVENT_TYPES, AUDIT_EVENT_TYPES, type AuditEventType } from './event-types.ts';
export { canonicalJson } from './canonical-json.ts';
