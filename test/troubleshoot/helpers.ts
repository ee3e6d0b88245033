import type { SecretStore } from '../../src/core/agent/define-agent.ts';

/** A `SecretStore` in memory, for tests (the core implements the real one over the `secrets` table). */
export class MemorySecretStore implements SecretStore {
  readonly values = new Map<string, string>();
  async get(name: string): Promise<string | undefined> {
    return this.values.get(name);
  }
  async set(name: string, value: string): Promise<void> {
    this.values.set(name, value);
  }
  async delete(name: string): Promise<void> {
    this.values.delete(name);
  }
}
