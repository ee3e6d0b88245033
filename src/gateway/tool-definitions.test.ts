import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../core/audit/index.ts';
import { sqliteTestStore, type TestStore } from '../testing/test-stores.ts';
import {
  type ChangedTool,
  definitionHash,
  ToolDefinitions,
  toolChangeNoticesMigration,
  toolDefinitionsMigration,
} from './tool-definitions.ts';

const tool = (description: string): Tool => ({ name: 'weather', description, inputSchema: { type: 'object' } });

describe('tool definitions: changes heard once, accepted only as reviewed', () => {
  let testStore: TestStore;
  beforeEach(async () => {
    testStore = await sqliteTestStore.create([toolDefinitionsMigration, toolChangeNoticesMigration]);
  });
  afterEach(async () => testStore.dispose());

  it('tells its listener of a change once, when it is first recorded', async () => {
    const heard: ChangedTool[] = [];
    const definitions = new ToolDefinitions(testStore.store, { onChanged: (change) => heard.push(change) });
    await definitions.review('rug', [tool('first')]);
    expect(heard).toEqual([]);
    expect(await definitions.review('rug', [tool('second')])).toEqual(new Set(['weather']));
    await definitions.review('rug', [tool('second')]);
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({
      upstream: 'rug',
      tool: 'weather',
      changed: { description: 'second' },
      accepted: { description: 'first' },
    });
  });

  it('refuses to accept a definition other than the one reviewed, and records the door of an accept', async () => {
    const definitions = new ToolDefinitions(testStore.store);
    await definitions.review('rug', [tool('first')]);
    await definitions.review('rug', [tool('second')]);
    await definitions.review('rug', [tool('third')]);
    const reviewed = definitionHash(tool('second'));
    await expect(
      definitions.accept('rug', 'weather', { actor: 'user:admin', username: 'admin', via: 'web' }, reviewed),
    ).rejects.toMatchObject({
      code: 'GATEWAY_TOOL_CHANGE_STALE',
    });
    expect(await definitions.changed()).toHaveLength(1);
    await definitions.accept('rug', 'weather', { actor: 'user:admin', username: 'admin', via: 'web' }, definitionHash(tool('third')));
    expect(await definitions.changed()).toEqual([]);
    const [accepted] = await new AuditLog(testStore.store).list({ type: 'tool_definition_accepted', limit: 10 });
    expect(accepted).toMatchObject({ actor: 'user:admin', payload: { tool: 'weather', by: 'admin', via: 'web' } });
  });

  it('lets one announcer claim each change, across instances on the store, and a later change again', async () => {
    const recorder = new ToolDefinitions(testStore.store);
    await recorder.review('rug', [tool('first')]);
    await recorder.review('rug', [tool('second')]);
    const [first, second] = [new ToolDefinitions(testStore.store), new ToolDefinitions(testStore.store)];
    const [change] = await first.unannounced();
    expect(change).toMatchObject({ tool: 'weather', changed: { description: 'second' } });
    expect(await Promise.all([first.claimNotice(change!), second.claimNotice(change!)])).toEqual([true, false]);
    expect(await second.unannounced()).toEqual([]);
    await recorder.review('rug', [tool('third')]);
    const [again] = await second.unannounced();
    expect(again).toMatchObject({ changed: { description: 'third' } });
    expect(await first.claimNotice(change!)).toBe(false);
    expect(await second.claimNotice(again!)).toBe(true);
  });
});
