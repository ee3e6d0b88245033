import { createHmac, randomBytes } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import type { HelmStatus, ReleaseHook } from '../backends/types.ts';
import type { Values } from '../values/merge-values.ts';

/**
 * User-values keys whose values are treated as secrets (`password`, `apiToken`, `tls.privateKey`,
 * `auth`, …). Helm has no notion of a secret value; this is opsgate's heuristic, and a key it
 * misses is shown like any other value.
 */
const SECRET_KEY = /pass(word|wd|phrase)?$|secret|token|credential|private.?key|api.?key|^auth$|^key$/i;

/**
 * Hides secret material before anything leaves the Helm service for the model, the approval
 * panel or a stored preview: the `data`/`stringData` of every Secret in a manifest or hook, and
 * user values under secret-looking keys. Each hidden value becomes a keyed digest, so a changed
 * secret still shows as a change and still changes the plan's hash, while a guess cannot be
 * checked against it without the key (an unkeyed hash of a weak password could be).
 *
 * Not Helm's `--hide-secret`: that drops Secrets from the dry run's output altogether, so a plan
 * would neither show nor bind a Secret's change.
 */
export class SecretRedactor {
  readonly #key: Buffer;

  /** `key`: the same on every replica (the agent keeps it in the secret store), or plans hash differently on each. */
  constructor(key: string | Buffer = randomBytes(32)) {
    this.#key = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  }

  #marker(where: string, value: unknown): string {
    const digest = createHmac('sha256', this.#key)
      .update(`${where}\0${JSON.stringify(value)}`)
      .digest('hex')
      .slice(0, 16);
    return `(hidden; hmac ${digest})`;
  }

  /** A manifest with each Secret's values replaced; a manifest without Secrets is returned as it is. */
  manifest(text: string): string {
    if (!/^kind:\s*Secret\s*$/m.test(text)) return text;
    return text
      .split(/^(?=---\s*$)/m)
      .map((chunk) => this.#chunk(chunk))
      .join('');
  }

  #chunk(chunk: string): string {
    if (!/^kind:\s*Secret\s*$/m.test(chunk)) return chunk;
    const head = /^(---\s*\n)?((?:#.*\n)*)/.exec(chunk)?.[0] ?? '';
    const documents = parseAllDocuments(chunk.slice(head.length), { uniqueKeys: false });
    const out = documents.map((document) => {
      const object = document.toJS() as Record<string, unknown> | null;
      if (object?.kind !== 'Secret') return String(document);
      const name = String((object.metadata as Record<string, unknown> | undefined)?.name ?? '');
      for (const field of ['data', 'stringData']) {
        const map = object[field];
        if (!map || typeof map !== 'object') continue;
        for (const key of Object.keys(map))
          document.setIn([field, key], this.#marker(`Secret/${name}/${field}/${key}`, (map as Values)[key]));
      }
      return String(document);
    });
    return head + out.join('---\n');
  }

  /** User values with every secret-looking key's value (a whole subtree for `auth:`) replaced. */
  values(values: Values, path = ''): Values {
    const out: Values = {};
    for (const [key, value] of Object.entries(values)) {
      const where = `${path}/${key}`;
      if (SECRET_KEY.test(key) && value !== null && value !== '' && value !== undefined) out[key] = this.#marker(where, value);
      else if (value && typeof value === 'object' && !Array.isArray(value)) out[key] = this.values(value as Values, where);
      else out[key] = value;
    }
    return out;
  }

  hooks(hooks: readonly ReleaseHook[]): ReleaseHook[] {
    return hooks.map((hook) => (hook.manifest ? { ...hook, manifest: this.manifest(hook.manifest) } : hook));
  }

  status(status: HelmStatus): HelmStatus {
    return { ...status, manifest: this.manifest(status.manifest), config: this.values(status.config) };
  }
}
