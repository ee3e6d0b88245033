export { mapClaims, type OidcConfig, oidcConfigFromEnv } from './oidc-config.ts';
export { OidcErrors } from './oidc-errors.ts';
export { OidcIdentities, oidcIdentitiesMigration } from './oidc-identities.ts';
export { OidcLogin } from './oidc-login.ts';
export { oidcRoutes } from './oidc-routes.ts';
