import type { ApiFailure } from '../client/access-api-client.ts';
import { toolMessage } from '../errors.ts';

/** get_user_accesses' own rows first, then the generic ones. */
export function userReadFailure(failure: ApiFailure): { error: string; detail?: string } {
  if (failure.kind === 'http' && failure.status === 404) return { error: toolMessage('ACCESS_TOOL_USER_NOT_FOUND') };
  if (failure.kind === 'http' && failure.status === 401) return { error: toolMessage('ACCESS_TOOL_AUTH_FAILED') };
  if (failure.kind === 'http' && failure.status !== undefined && failure.status < 500) return { error: failure.message };
  return { error: toolMessage('ACCESS_TOOL_BACKEND_UNAVAILABLE'), detail: failure.message };
}

/** grant_access_to_user's own rows first, then the generic ones. */
export function grantFailure(failure: ApiFailure, accessName: string): { success: false; message: string; detail?: string } {
  if (failure.kind === 'http') {
    if (failure.status === 404) {
      return failure.code === 'ACCESS_USER_NOT_FOUND'
        ? { success: false, message: toolMessage('ACCESS_TOOL_USER_NOT_FOUND') }
        : { success: false, message: toolMessage('ACCESS_TOOL_ACCESS_NOT_FOUND', { accessName }) };
    }
    if (failure.status === 409) return { success: false, message: toolMessage('ACCESS_TOOL_ALREADY_ASSIGNED') };
    if (failure.status === 401) return { success: false, message: toolMessage('ACCESS_TOOL_AUTH_FAILED') };
    if (failure.status !== undefined && failure.status < 500) return { success: false, message: failure.message };
  }
  return { success: false, message: toolMessage('ACCESS_TOOL_BACKEND_UNAVAILABLE'), detail: failure.message };
}
