export { mapClaims, type OidcConfig, oidcConfigFromEnv } from './oidc-config.ts';
export { OidcErrors } from './oidc-errors.ts';
export { OidcLogin } from './oidc-login.ts';
export { oidcRoutes } from './oidc-routes.ts';
