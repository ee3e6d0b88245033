export type { KubeObject } from './object-store.ts';
export { type KubeApiStub, type KubeApiStubOptions, type KubeVerb, startKubeApiStub } from './server.ts';
