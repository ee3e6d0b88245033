import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';

/** A real model's answers, step by step per scenario, so that its eval result replays offline. */
export interface Cassette {
  readonly model: string;
  readonly steps: Record<string, Array<Pick<LanguageModelV4GenerateResult, 'content' | 'finishReason' | 'usage'>>>;
}

const positions = new WeakMap<Cassette, Map<string, number>>();

function next(cassette: Cassette, key: string): number {
  const map = positions.get(cassette) ?? new Map<string, number>();
  positions.set(cassette, map);
  const at = map.get(key) ?? 0;
  map.set(key, at + 1);
  return at;
}

/** Streaming is declined ("Not implemented"), so the turn loop asks `doGenerate`: whole steps are recorded and replayed. */
const noStream = async (): Promise<never> => {
  throw new Error('Not implemented');
};

/** The model, with each step's answer written into the cassette under `key`. */
export function recordingModel(model: LanguageModelV4, cassette: Cassette, key: string): LanguageModelV4 {
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doStream: noStream,
    async doGenerate(options: LanguageModelV4CallOptions) {
      const result = await model.doGenerate(options);
      const steps = cassette.steps[key] ?? [];
      steps.push({ content: result.content, finishReason: result.finishReason, usage: result.usage });
      cassette.steps[key] = steps;
      return result;
    },
  };
}

/** Answers each step from the cassette, in order; a step it does not hold fails with what to do. */
export function replayingModel(cassette: Cassette, key: string): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: `cassette:${cassette.model}`,
    modelId: cassette.model,
    supportedUrls: {},
    doStream: noStream,
    async doGenerate() {
      const at = next(cassette, key);
      const step = cassette.steps[key]?.[at];
      if (!step)
        throw new Error(`the cassette holds no step ${at + 1} for ${key}: the scenario changed since it was recorded; record it again`);
      return { ...step, warnings: [] };
    },
  };
}

export function loadCassette(path: string): Cassette {
  return JSON.parse(readFileSync(path, 'utf8')) as Cassette;
}

export function saveCassette(cassette: Cassette, path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(cassette, null, 1)}\n`);
  return path;
}
