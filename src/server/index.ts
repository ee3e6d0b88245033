export { createServer } from './create-server.ts';
export type { HelmClusterDirectory } from './routes/helm-cluster-routes.ts';
export type { HostDirectory } from './routes/host-routes.ts';
