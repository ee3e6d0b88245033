import { createServer, type IncomingMessage, type Server } from 'node:http';

/**
 * A local stand-in for Slack's Web API that checks requests the way Slack documents them
 * (api.slack.com/web, "Block Kit" reference limits) and refuses what Slack would refuse, with
 * Slack's own error names: a missing or wrong bot token (`not_authed`, `invalid_auth`), a request
 * that is not form-encoded, a missing `channel`, neither `text` nor `blocks`, and blocks that break
 * Block Kit's limits (`invalid_blocks`). It also serves the `response_url` of interactions.
 */
export interface FakeSlackMember {
  readonly id: string;
  readonly email: string;
  readonly emailConfirmed: boolean;
}

export interface PostedMessage {
  readonly channel: string;
  readonly ts: string;
  text: string;
  blocks: Array<Record<string, unknown>>;
  readonly updates: Array<{ text: string; blocks: Array<Record<string, unknown>> }>;
}

export interface FakeSlack {
  /** Base for `WebClient`'s `slackApiUrl` (ends with `/api/`). */
  readonly apiUrl: string;
  /** A `response_url` Slack would put in an interaction payload. */
  responseUrl(id: string): string;
  readonly messages: PostedMessage[];
  /** Bodies posted to response URLs, by id. */
  readonly responses: Map<string, Array<Record<string, unknown>>>;
  /** Every refused call: method and Slack's error name. */
  readonly refused: Array<{ method: string; error: string }>;
  close(): Promise<void>;
}

type Block = Record<string, unknown>;
type Text = { type?: string; text?: string } | undefined;

function textOk(text: Text, max: number, types: readonly string[]): boolean {
  return !!text && types.includes(text.type ?? '') && typeof text.text === 'string' && text.text.length > 0 && text.text.length <= max;
}

/** Block Kit limits of the block types opsgate sends; the first problem found, or undefined. */
export function blockKitProblem(blocks: unknown): string | undefined {
  if (!Array.isArray(blocks)) return 'blocks is not an array';
  if (blocks.length === 0 || blocks.length > 50) return 'a message has 1 to 50 blocks';
  const actionIds = new Set<string>();
  for (const block of blocks as Block[]) {
    if (typeof block.block_id === 'string' && block.block_id.length > 255) return 'block_id is longer than 255';
    switch (block.type) {
      case 'header':
        if (!textOk(block.text as Text, 150, ['plain_text'])) return 'header text must be plain_text up to 150 characters';
        break;
      case 'section': {
        const fields = block.fields as Text[] | undefined;
        if (!block.text && !fields) return 'a section needs text or fields';
        if (block.text && !textOk(block.text as Text, 3000, ['mrkdwn', 'plain_text'])) return 'section text is up to 3000 characters';
        if (fields && (fields.length > 10 || !fields.every((f) => textOk(f, 2000, ['mrkdwn', 'plain_text']))))
          return 'a section has up to 10 fields of up to 2000 characters';
        break;
      }
      case 'context': {
        const elements = block.elements as Text[];
        if (!Array.isArray(elements) || elements.length === 0 || elements.length > 10) return 'a context has 1 to 10 elements';
        if (!elements.every((e) => textOk(e, 3000, ['mrkdwn', 'plain_text']))) return 'context text is up to 3000 characters';
        break;
      }
      case 'actions': {
        const elements = block.elements as Block[];
        if (!Array.isArray(elements) || elements.length === 0 || elements.length > 25) return 'an actions block has 1 to 25 elements';
        for (const button of elements) {
          if (button.type !== 'button') return `unexpected element ${String(button.type)}`;
          if (!textOk(button.text as Text, 75, ['plain_text'])) return 'button text is plain_text up to 75 characters';
          const id = button.action_id;
          if (typeof id !== 'string' || id.length > 255 || actionIds.has(id)) return 'action_id must be unique and up to 255 characters';
          actionIds.add(id);
          if (typeof button.value === 'string' && button.value.length > 2000) return 'button value is up to 2000 characters';
          if (button.style !== undefined && button.style !== 'primary' && button.style !== 'danger') return 'style is primary or danger';
          if (typeof button.url === 'string' && button.url.length > 3000) return 'url is up to 3000 characters';
          const confirm = button.confirm as Record<string, Text> | undefined;
          if (
            confirm &&
            !(
              textOk(confirm.title, 100, ['plain_text']) &&
              textOk(confirm.text, 300, ['plain_text', 'mrkdwn']) &&
              textOk(confirm.confirm, 30, ['plain_text']) &&
              textOk(confirm.deny, 30, ['plain_text'])
            )
          )
            return 'a confirm dialog has a title (100), text (300), confirm and deny (30 each)';
        }
        break;
      }
      default:
        return `unexpected block type ${String(block.type)}`;
    }
  }
  return undefined;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeSlack(options: {
  botToken: string;
  members: readonly FakeSlackMember[];
  /** The workspace the bot token belongs to. Default `T0OPSGATE`. */
  teamId?: string;
}): Promise<FakeSlack> {
  const messages: PostedMessage[] = [];
  const responses = new Map<string, Array<Record<string, unknown>>>();
  const refused: Array<{ method: string; error: string }> = [];
  let clock = 1_700_000_000;
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    const answer = (status: number, data: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(data));
    };
    const url = new URL(request.url ?? '/', 'http://fake-slack');
    const responseId = /^\/actions\/response\/([\w-]+)$/.exec(url.pathname)?.[1];
    if (responseId) {
      responses.set(responseId, [...(responses.get(responseId) ?? []), JSON.parse(body) as Record<string, unknown>]);
      return answer(200, { ok: true });
    }
    const method = /^\/api\/([\w.]+)$/.exec(url.pathname)?.[1] ?? '';
    const fail = (error: string) => {
      refused.push({ method, error });
      answer(200, { ok: false, error });
    };
    if (request.method !== 'POST') return fail('invalid_request');
    const auth = request.headers.authorization;
    if (!auth) return fail('not_authed');
    if (auth !== `Bearer ${options.botToken}`) return fail('invalid_auth');
    if (!request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) return fail('invalid_form_data');
    const form = new URLSearchParams(body);
    const blocksOf = (): Array<Record<string, unknown>> | string => {
      const raw = form.get('blocks');
      if (raw === null) return [];
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        return 'invalid_blocks_format';
      }
      const problem = blockKitProblem(parsed);
      return problem ? `invalid_blocks: ${problem}` : (parsed as Array<Record<string, unknown>>);
    };
    switch (method) {
      case 'chat.postMessage': {
        const channel = form.get('channel');
        if (!channel) return fail('channel_not_found');
        const blocks = blocksOf();
        if (typeof blocks === 'string') return fail(blocks);
        if (!form.get('text') && blocks.length === 0) return fail('no_text');
        // A member id as channel posts to the app's direct message with that member.
        const posted = channel.startsWith('U') ? `D${channel.slice(1)}` : channel;
        const ts = `${clock++}.000100`;
        messages.push({ channel: posted, ts, text: form.get('text') ?? '', blocks, updates: [] });
        return answer(200, { ok: true, channel: posted, ts, message: { text: form.get('text'), ts } });
      }
      case 'chat.update': {
        const message = messages.find((m) => m.channel === form.get('channel') && m.ts === form.get('ts'));
        if (!message) return fail('message_not_found');
        const blocks = blocksOf();
        if (typeof blocks === 'string') return fail(blocks);
        message.updates.push({ text: form.get('text') ?? '', blocks });
        message.text = form.get('text') ?? message.text;
        message.blocks = blocks;
        return answer(200, { ok: true, channel: message.channel, ts: message.ts });
      }
      case 'users.info': {
        const member = options.members.find((m) => m.id === form.get('user'));
        if (!member) return fail('user_not_found');
        return answer(200, {
          ok: true,
          user: { id: member.id, is_email_confirmed: member.emailConfirmed, profile: { email: member.email } },
        });
      }
      case 'auth.test':
        // The workspace the bot token belongs to (api.slack.com/methods/auth.test).
        return answer(200, { ok: true, team_id: options.teamId ?? 'T0OPSGATE', user_id: 'U0OPSGATEBOT', bot_id: 'B0OPSGATE' });
      case 'users.lookupByEmail': {
        const member = options.members.find((m) => m.email === form.get('email'));
        if (!member) return fail('users_not_found');
        return answer(200, { ok: true, user: { id: member.id, profile: { email: member.email } } });
      }
      default:
        return fail('unknown_method');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    apiUrl: `${base}/api/`,
    responseUrl: (id) => `${base}/actions/response/${id}`,
    messages,
    responses,
    refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
