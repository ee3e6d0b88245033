export { type KubeApiStub, startKubeApiStub } from './server.ts';
