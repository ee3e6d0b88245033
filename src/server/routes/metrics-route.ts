import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { defineErrorCodes } from '../../core/errors/index.ts';

const MetricsErrors = defineErrorCodes({
  METRICS_TOKEN_REQUIRED: {
    status: 401,
    message: 'GET /metrics needs "Authorization: Bearer <OPSGATE_METRICS_TOKEN>". Put the token in the scraper’s configuration.',
  },
  METRICS_HOST_NOT_ALLOWED: {
    status: 403,
    message:
      'Without OPSGATE_METRICS_TOKEN, /metrics answers only to Host 127.0.0.1, localhost or [::1] (a page on another name could be DNS rebinding). Scrape it by one of those names, or set the token.',
  },
  METRICS_LOOPBACK_ONLY: {
    status: 403,
    message:
      'Without OPSGATE_METRICS_TOKEN, /metrics answers only on this machine (127.0.0.1, ::1). Set the token to scrape it from elsewhere.',
  },
});

export interface MetricsEndpoint {
  /** The metrics in Prometheus' text format. */
  render(): Promise<string>;
  /** Bearer token the scraper must send. Without one, only loopback clients are answered. */
  readonly token?: string;
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The host name of a Host header, without its port. */
function hostnameOf(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
}

/** `GET /metrics` for Prometheus: outside the login context, guarded by its own token (or loopback). */
export function metricsRoute(app: FastifyInstance, metrics: MetricsEndpoint): void {
  app.get('/metrics', async (request, reply) => {
    if (metrics.token) {
      const header = request.headers.authorization ?? '';
      const given = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
      if (!sameSecret(given, metrics.token)) throw MetricsErrors.METRICS_TOKEN_REQUIRED();
    } else if (!LOOPBACK.has(request.socket.remoteAddress ?? '')) {
      throw MetricsErrors.METRICS_LOOPBACK_ONLY();
    } else if (!LOOPBACK_NAMES.has(hostnameOf(request.headers.host ?? '').toLowerCase())) {
      throw MetricsErrors.METRICS_HOST_NOT_ALLOWED();
    }
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(await metrics.render());
  });
}
