import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installRunbookPages } from './runbook-pages.ts';

describe('runbook pages', () => {
  const app = Fastify();
  beforeAll(async () => {
    installRunbookPages(app);
    await app.ready();
  });
  afterAll(() => app.close());

  it('serves a runbook the troubleshoot agent links to, as an escaped page', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs/runbooks/linux-disk-full.md' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('df -h');
  });

  it('answers 404 with what to do for unknown names and never leaves the folder', async () => {
    for (const url of ['/docs/runbooks/nope.md', '/docs/runbooks/..%2F..%2Fpackage.json', '/docs/runbooks/README']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.body).toContain('/docs/runbooks/README.md');
    }
  });
});
