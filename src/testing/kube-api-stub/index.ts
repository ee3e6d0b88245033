export type { KubeObject } from './object-store.ts';
export { type KubeApiStub, type KubeApiStubOptions, startKubeApiStub } from './server.ts';
