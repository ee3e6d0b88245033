export { hasRole, type Identity, ROLE_ADMIN, ROLE_APPROVER, ROLE_USER } from './identity.ts';
