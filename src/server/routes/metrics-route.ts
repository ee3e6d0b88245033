import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ServerErrors } from '../server-errors.ts';

/** What `/metrics` serves: the Prometheus text of a registry (`createMetrics()` in core/telemetry). */
export interface MetricsEndpoint {
  render(): Promise<string>;
  readonly contentType: string;
  /**
   * When set, a scrape must send `Authorization: Bearer TOKEN`. Unset, `/metrics` is public like
   * Prometheus expects on an internal network: it shows counts and timings, never session content.
   */
  readonly token?: string;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `GET /metrics` in the Prometheus text format, outside the login context (scrapers have no login). */
export function metricsRoute(app: FastifyInstance, endpoint: MetricsEndpoint): void {
  app.get('/metrics', async (request, reply) => {
    if (endpoint.token && !tokenMatches(request.headers.authorization, endpoint.token)) throw ServerErrors.METRICS_TOKEN_REQUIRED();
    return reply.type(endpoint.contentType).send(await endpoint.render());
  });
}
