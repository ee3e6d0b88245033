export { type Identity, ROLE_USER, ROLE_APPROVER, ROLE_ADMIN, hasRole } from './identity.ts';
