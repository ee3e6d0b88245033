export {
  AccessApiClient,
  type AccessApiClientOptions,
  type ApiFailure,
  type ApiResult,
  classifyNetworkError,
  resetBackendPolicies,
} from './access-api-client.ts';
export { AccessToolErrors, GRANTED_MESSAGE, toolMessage } from './messages.ts';
