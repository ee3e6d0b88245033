/**
 * The stub's objects, keyed by type, namespace and name, with one resourceVersion counter and an
 * event log that watches replay from a resourceVersion and then follow.
 */
import { randomUUID } from 'node:crypto';
import type { ResourceType } from './resources.ts';

export type KubeObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown> & { name: string; namespace?: string; labels?: Record<string, string> };
};
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: KubeObject;
  readonly resourceVersion: number;
}

const keyOf = (type: ResourceType, namespace: string | undefined, name: string) =>
  `${type.group}/${type.plural}/${type.namespaced ? (namespace ?? '') : ''}/${name}`;

/** Equality (`a=b`, `a==b`), inequality (`a!=b`), existence (`a`, `!a`) and `in`/`notin` selectors. */
export function matchesLabelSelector(labels: Record<string, string> | undefined, selector: string | null): boolean {
  if (!selector) return true;
  const own = labels ?? {};
  return splitSelector(selector).every((term) => {
    const set = /^\s*([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)\s*$/.exec(term);
    if (set) {
      const values = set[3]!.split(',').map((v) => v.trim());
      const has = set[1]! in own && values.includes(own[set[1]!]!);
      return set[2] === 'in' ? has : !has;
    }
    const unequal = /^([^!=]+)!=(.*)$/.exec(term);
    if (unequal) return own[unequal[1]!.trim()] !== unequal[2]!.trim();
    const equal = /^([^=]+)==?(.*)$/.exec(term);
    if (equal) return own[equal[1]!.trim()] === equal[2]!.trim();
    if (term.startsWith('!')) return !(term.slice(1).trim() in own);
    return term.trim() in own;
  });
}

function splitSelector(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      terms.push(current);
      current = '';
    } else current += char;
  }
  if (current) terms.push(current);
  return terms;
}

export class ObjectStore {
  readonly #objects = new Map<string, { type: ResourceType; object: KubeObject }>();
  readonly #log: Array<WatchEvent & { type_: ResourceType }> = [];
  readonly #listeners = new Set<(event: WatchEvent, type: ResourceType) => void>();
  #resourceVersion = 1;

  get resourceVersion(): number {
    return this.#resourceVersion;
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.#objects.get(keyOf(type, namespace, name))?.object;
  }

  list(type: ResourceType, namespace: string | undefined, labelSelector: string | null = null): KubeObject[] {
    return [...this.#objects.values()]
      .filter(({ type: t, object }) => t === type && (!namespace || !type.namespaced || object.metadata.namespace === namespace))
      .map(({ object }) => object)
      .filter((object) => matchesLabelSelector(object.metadata.labels, labelSelector));
  }

  /** Stores an object, giving it a uid, creation time and generation on creation and a new resourceVersion always. */
  put(type: ResourceType, object: KubeObject): KubeObject {
    const key = keyOf(type, object.metadata.namespace, object.metadata.name);
    const previous = this.#objects.get(key)?.object;
    const metadata = object.metadata;
    if (previous) {
      metadata.uid = previous.metadata.uid;
      metadata.creationTimestamp = previous.metadata.creationTimestamp;
      const specChanged = JSON.stringify(previous.spec) !== JSON.stringify(object.spec);
      metadata.generation = Number(previous.metadata.generation ?? 1) + (specChanged ? 1 : 0);
    } else {
      metadata.uid ??= randomUUID();
      metadata.creationTimestamp ??= new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      metadata.generation = 1;
    }
    if (!type.namespaced) delete metadata.namespace;
    metadata.resourceVersion = String(++this.#resourceVersion);
    this.#objects.set(key, { type, object });
    this.#emit(type, previous ? 'MODIFIED' : 'ADDED', object);
    return object;
  }

  delete(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const key = keyOf(type, namespace, name);
    const found = this.#objects.get(key)?.object;
    if (!found) return undefined;
    this.#objects.delete(key);
    found.metadata.resourceVersion = String(++this.#resourceVersion);
    this.#emit(type, 'DELETED', found);
    return found;
  }

  /** Events of a type after a resourceVersion, then live ones until the returned function is called. */
  watch(type: ResourceType, since: number, onEvent: (event: WatchEvent) => void): () => void {
    for (const event of this.#log) if (event.type_ === type && event.resourceVersion > since) onEvent(event);
    const listener = (event: WatchEvent, t: ResourceType) => {
      if (t === type) onEvent(event);
    };
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  onChange(listener: (event: WatchEvent, type: ResourceType) => void): void {
    this.#listeners.add(listener);
  }

  #emit(type: ResourceType, eventType: WatchEventType, object: KubeObject): void {
    const event = { type: eventType, object: structuredClone(object), resourceVersion: this.#resourceVersion };
    this.#log.push({ ...event, type_: type });
    if (this.#log.length > 5000) this.#log.shift();
    for (const listener of [...this.#listeners]) listener(event, type);
  }
}
