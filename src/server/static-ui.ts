import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Where `scripts/build-web.sh` writes the built UI. */
export const DEFAULT_WEB_ROOT = join(import.meta.dirname, '..', 'web', 'dist');

/** Serves the built UI (hashed assets cached for a year, `index.html` never cached). */
export async function installStaticUi(app: FastifyInstance, webRoot: string): Promise<void> {
  if (!existsSync(join(webRoot, 'index.html'))) {
    app.get('/', async (_request, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .status(503)
        .send(`The web UI is not built (${webRoot} has no index.html). Run scripts/build-web.sh, or use the API documented at /docs.\n`),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root: webRoot,
    prefix: '/',
    wildcard: true,
    index: ['index.html'],
    setHeaders(response, path) {
      response.header('cache-control', path.includes(`${join('assets', '')}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
}
