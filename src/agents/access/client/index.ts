export { AccessToolErrors, GRANTED_MESSAGE, toolMessage } from '../errors.ts';
export {
  AccessApiClient,
  type AccessApiClientOptions,
  type ApiFailure,
  type ApiResult,
  classifyNetworkError,
} from './access-api-client.ts';
