export { type KubeApiStub, type KubeApiStubOptions, startKubeApiStub } from './server.ts';
