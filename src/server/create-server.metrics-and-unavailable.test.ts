import { afterEach, describe, expect, it } from 'vitest';
import { createPrometheusObserver } from '../core/telemetry/index.ts';
import { createServerFixture, type ServerFixture } from './testing/server-fixture.ts';

describe('server: /metrics and an unreachable store', () => {
  let fixture: ServerFixture | undefined;
  afterEach(async () => {
    await fixture?.dispose();
    fixture = undefined;
  });

  it('with OPSGATE_METRICS_TOKEN, /metrics answers the bearer of the token only', async () => {
    const metrics = createPrometheusObserver();
    fixture = await createServerFixture({ metrics: { render: () => metrics.render(), token: 's3cret-scrape-token' } });
    const anonymous = await fixture.app.inject({ method: 'GET', url: '/metrics' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ code: 'METRICS_TOKEN_REQUIRED' });
    const wrong = await fixture.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer s3cret-scrape-tokeX' } });
    expect(wrong.statusCode).toBe(401);
    const scraped = await fixture.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer s3cret-scrape-token' } });
    expect(scraped.statusCode).toBe(200);
    expect(scraped.headers['content-type']).toMatch(/^text\/plain/);
    expect(scraped.body).toContain('# TYPE opsgate_tool_calls_total counter');
  });

  it('without a token, /metrics answers loopback clients and refuses others with what to do', async () => {
    const metrics = createPrometheusObserver();
    fixture = await createServerFixture({ metrics: { render: () => metrics.render() } });
    const local = await fixture.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(local.statusCode).toBe(200);
    const remote = await fixture.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '192.0.2.10' });
    expect(remote.statusCode).toBe(403);
    expect(remote.json().message).toContain('OPSGATE_METRICS_TOKEN');
    // A DNS-rebinding page reaches the loopback address under its own name: refused by Host (review L6).
    const rebound = await fixture.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '127.0.0.1',
      headers: { host: 'evil.example' },
    });
    expect(rebound.statusCode).toBe(403);
    expect(rebound.json()).toMatchObject({ code: 'METRICS_HOST_NOT_ALLOWED' });
    for (const host of ['localhost:8080', '[::1]:8080', '127.0.0.1'])
      expect((await fixture.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers: { host } })).statusCode).toBe(
        200,
      );
  });

  it('a store that cannot be reached gets 503 STORE_UNAVAILABLE with Retry-After, never a stack trace', async () => {
    fixture = await createServerFixture();
    fixture.app.get('/test/store-down', async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    fixture.app.get('/test/store-restarting', async () => {
      throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    });
    for (const url of ['/test/store-down', '/test/store-restarting']) {
      const response = await fixture.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('2');
      expect(response.json()).toEqual({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining('Try again') });
      expect(response.body).not.toMatch(/ECONNREFUSED|at .*\.ts/);
    }
  });

  it('/healthz and /readyz answer without signing in (test/core/faults/postgres-restart.test.ts takes the store away)', async () => {
    fixture = await createServerFixture();
    expect((await fixture.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ ok: true });
    expect((await fixture.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ ok: true, store: 'sqlite' });
  });
});
