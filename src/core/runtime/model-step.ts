import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';

/** Models that answered "Not implemented" to `doStream` (mock models): asked with `doGenerate` from then on. */
const generateOnly = new WeakSet<LanguageModelV4>();

/**
 * One model step. Streams when the model can, handing each text delta to `onTextDelta` as it
 * arrives, and returns the same content `doGenerate` would.
 */
export async function runModelStep(
  model: LanguageModelV4,
  options: LanguageModelV4CallOptions,
  onTextDelta: (text: string) => Promise<unknown>,
  onUsage: (usage: LanguageModelV4Usage) => void = () => {},
): Promise<LanguageModelV4Content[]> {
  if (!generateOnly.has(model)) {
    let stream: ReadableStream<LanguageModelV4StreamPart> | undefined;
    try {
      stream = (await model.doStream(options)).stream;
    } catch (error) {
      if (!(error instanceof Error && error.message === 'Not implemented')) throw error;
      generateOnly.add(model);
    }
    if (stream) return collect(stream, onTextDelta, onUsage);
  }
  const result = await model.doGenerate(options);
  if (result.usage) onUsage(result.usage);
  return result.content;
}

async function collect(
  stream: ReadableStream<LanguageModelV4StreamPart>,
  onTextDelta: (text: string) => Promise<unknown>,
  onUsage: (usage: LanguageModelV4Usage) => void,
): Promise<LanguageModelV4Content[]> {
  const content: LanguageModelV4Content[] = [];
  const texts = new Map<string, { type: 'text'; text: string }>();
  const reader = stream.getReader();
  for (;;) {
    const { done, value: part } = await reader.read();
    if (done) break;
    switch (part.type) {
      case 'text-start': {
        const text = { type: 'text' as const, text: '' };
        texts.set(part.id, text);
        content.push(text);
        break;
      }
      case 'text-delta': {
        let text = texts.get(part.id);
        if (!text) {
          text = { type: 'text', text: '' };
          texts.set(part.id, text);
          content.push(text);
        }
        text.text += part.delta;
        if (part.delta) await onTextDelta(part.delta);
        break;
      }
      case 'tool-call':
        content.push(part);
        break;
      case 'finish':
        if (part.usage) onUsage(part.usage);
        break;
      case 'error':
        throw part.error instanceof Error
          ? part.error
          : new Error(typeof part.error === 'string' ? part.error : JSON.stringify(part.error));
      default:
        break;
    }
  }
  return content.filter((part) => part.type !== 'text' || part.text.length > 0);
}
