export { CHANNELS, type Channel, hasRole, type Identity, ROLE_ADMIN, ROLE_APPROVER, ROLE_USER, throughChannel } from './identity.ts';
export { type CredentialFacts, type CredentialHolder, identityOf } from './identity-rules.ts';
