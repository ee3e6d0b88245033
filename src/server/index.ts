export { type AuditChainStatus, type AuditEventView, type AuditFilter, AuditReader } from './audit-reader.ts';
export { createServer, type ServerOptions } from './create-server.ts';
export { LoginSessions, SESSION_COOKIE } from './login-sessions.ts';
export { type SocketFrame, startEventStream } from './routes/event-socket.ts';
export type { HelmClusterDirectory, HelmClusterView } from './routes/helm-cluster-routes.ts';
export type { HostDirectory } from './routes/host-routes.ts';
export { ServerErrors } from './server-errors.ts';
