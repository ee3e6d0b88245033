import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance } from 'fastify';
import { CoreErrors, OpsgateError } from '../core/errors/index.ts';
import { isStoreUnavailable } from '../core/store/index.ts';
import { ServerErrors } from './server-errors.ts';
import { isStoreFull } from './store-full.ts';

/** Seconds a client should wait before retrying when the store is unavailable. */
const STORE_RETRY_AFTER_SECONDS = 2;

/** The client sees `{ code, message }` and the right status, never a stack trace. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | OpsgateError | Error, request, reply) => {
    let failure: OpsgateError;
    if (OpsgateError.isInstance(error)) {
      failure = error;
    } else if (isStoreUnavailable(error)) {
      failure = CoreErrors.STORE_UNAVAILABLE({}, { cause: error });
    } else if (isStoreFull(error)) {
      failure = ServerErrors.STORE_FULL({}, { cause: error });
    } else if ('statusCode' in error && typeof error.statusCode === 'number' && error.statusCode === 429) {
      failure = ServerErrors.RATE_LIMITED({
        retryAfter: reply.getHeader('retry-after') ? `${reply.getHeader('retry-after')} seconds` : 'a minute',
      });
    } else if ('statusCode' in error && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      // Fastify's own client errors: bad JSON, body too large, wrong content type.
      failure = ServerErrors.INVALID_REQUEST({ detail: error.message });
      failure = new OpsgateError(failure.code, failure.message, error.statusCode, failure.fields);
    } else {
      const reference = randomUUID();
      request.log.error({ err: error, reference }, 'request failed');
      failure = ServerErrors.INTERNAL({ reference });
    }
    if (failure.status >= 500) request.log.warn({ code: failure.code }, failure.message);
    // A store that is down or busy comes back by itself: say when to try again.
    if (failure.status === 503) void reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    // Our own limits name their wait; say it in the header clients and proxies read too.
    if (failure.status === 429 && typeof failure.fields.retryAfter === 'number')
      void reply.header('retry-after', String(failure.fields.retryAfter));
    void reply.status(failure.status).send({ code: failure.code, message: failure.message });
  });
  app.setNotFoundHandler((request, reply) => {
    const failure = ServerErrors.ROUTE_NOT_FOUND({ method: request.method, url: request.url.split('?')[0] });
    void reply.status(404).send({ code: failure.code, message: failure.message });
  });
}
