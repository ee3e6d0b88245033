import { describe, expect, it } from 'vitest';
import { parseServerCheck } from './server-check.ts';

// kubectl's stderr lines as the apiserver and kubectl word them (apimachinery strict decoding,
// kubectl's mapping error, the authorizer's 403, a missing namespace).
describe("the API server's strict check of the rendered objects (issue 30 N6)", () => {
  it('names each refused object with the server’s words, and each thing it could not check', () => {
    const stderr = [
      'Warning: unrelated deprecation',
      'Error from server (BadRequest): Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicaz", unknown field "spec.foo"',
      'error: resource mapping not found for name: "nightly" namespace: "" from "objects.yaml": no matches for kind "CronTab" in version "stable.example.com/v1"',
      'Error from server (Forbidden): secrets "db" is forbidden: User "system:serviceaccount:team-a:deployer" cannot patch resource "secrets" in API group "" in the namespace "team-a"',
      'Error from server (NotFound): namespaces "shop" not found',
      'error: something kubectl never said before',
    ].join('\n');
    expect(parseServerCheck('', stderr)).toEqual({
      invalid: ['Deployment: unknown field "spec.replicaz", unknown field "spec.foo"'],
      unchecked: [
        'CronTab (stable.example.com/v1) objects: the kind is not served yet (its CRD is installed by this change)',
        'secrets: this identity may not patch them, even in a dry run (Helm will need to)',
        'the objects in namespace shop: it does not exist yet (this change creates it)',
        'the objects kubectl stopped at: something kubectl never said before',
      ],
    });
  });

  it('a clean run is neither invalid nor unchecked', () => {
    expect(parseServerCheck('deployment.apps/web serverside-applied (server dry run)\n', '')).toEqual({ invalid: [], unchecked: [] });
  });
});
