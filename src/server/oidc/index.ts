export { type OidcConfig, oidcConfigFromEnv } from './oidc-config.ts';
export { OidcIdentities } from './oidc-identities.ts';
export { OidcLogin } from './oidc-login.ts';
export { oidcRoutes } from './oidc-routes.ts';
