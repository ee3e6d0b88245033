import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/** `docs/runbooks` of this checkout: the troubleshoot agent's `[Open runbook](docs/runbooks/…)` links point here. */
const DEFAULT_RUNBOOK_DIR = join(import.meta.dirname, '..', '..', 'docs', 'runbooks');

const FILE_NAME = /^[a-z0-9-]+\.md$/;
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Serves the runbooks as readable pages at `/docs/runbooks/<name>.md` (public, like `/docs`: they
 * hold procedures, never secrets). Only plain file names are accepted, so no path leaves the folder.
 */
export function installRunbookPages(app: FastifyInstance, dir: string = DEFAULT_RUNBOOK_DIR): void {
  app.get<{ Params: { file: string } }>('/docs/runbooks/:file', async (request, reply) => {
    const { file } = request.params;
    const path = join(dir, file);
    if (!FILE_NAME.test(file) || !existsSync(path)) {
      return reply
        .status(404)
        .type('text/plain; charset=utf-8')
        .send(`There is no runbook named ${file}. The runbooks are listed at /docs/runbooks/README.md.\n`);
    }
    const markdown = readFileSync(path, 'utf8');
    const title = /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? file;
    return reply.type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · opsgate runbook</title>
<style>body{font-family:system-ui,sans-serif;max-width:52rem;margin:1rem auto;padding:0 1rem;line-height:1.5}pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.9rem}</style>
</head><body><p><a href="/">opsgate</a> · runbook <code>${escapeHtml(file)}</code></p>
<pre data-testid="runbook">${escapeHtml(markdown)}</pre></body></html>`);
  });
}
