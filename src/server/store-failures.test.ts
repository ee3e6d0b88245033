import { describe, expect, it } from 'vitest';
import { storeUnavailable } from './store-failures.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('storeUnavailable', () => {
  it.each([
    ['a refused connection', withCode('ECONNREFUSED')],
    ['a server shutting down (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['a server starting up (57P03)', withCode('57P03', 'the database system is starting up')],
    ['a connection exception (08006)', withCode('08006')],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
    ['a pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['every address refused', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], '')],
    ['a wrapped cause', new Error('could not load the session', { cause: withCode('ECONNRESET') })],
  ])('maps %s to STORE_UNAVAILABLE (503)', (_, error) => {
    expect(storeUnavailable(error)).toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 });
  });

  it('leaves other database errors alone', () => {
    expect(storeUnavailable(withCode('23505', 'duplicate key value violates unique constraint'))).toBeUndefined();
    expect(storeUnavailable(new Error('boom'))).toBeUndefined();
    expect(storeUnavailable('text')).toBeUndefined();
  });
});
