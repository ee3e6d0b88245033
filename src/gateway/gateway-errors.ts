import { defineErrorCodes } from '../core/errors/index.ts';

/** Errors of the MCP gateway. Messages say what to do next. */
export const GatewayErrors = defineErrorCodes({
  GATEWAY_CONFIG_INVALID: {
    status: 400,
    message: 'The gateway configuration {file} is invalid: {detail}. Fix it (see docs/gateway.md) and start again.',
  },
  GATEWAY_UPSTREAM_UNAVAILABLE: {
    status: 503,
    message:
      'The upstream MCP server "{upstream}" is not available ({detail}). Nothing ran. Try again shortly; an admin sees its status at GET /api/gateway/upstreams.',
  },
  GATEWAY_UPSTREAM_TIMEOUT: {
    status: 504,
    message:
      'The upstream MCP server "{upstream}" did not answer {tool} within {timeoutMs} ms. Whether it ran is unknown; check the upstream before trying again.',
  },
  GATEWAY_OUTCOME_UNKNOWN: {
    status: 502,
    message:
      'The upstream MCP server "{upstream}" went away while running {tool} ({detail}). Whether it ran is unknown, so opsgate recorded the call as unknown and will not run it again; check the upstream before proposing it anew.',
  },
  GATEWAY_TOOL_ERROR: { status: 422, message: '{tool} on the upstream "{upstream}" answered with an error: {detail}' },
  GATEWAY_RATE_LIMITED: { status: 429, message: 'Too many calls ({scope}). Wait {retryAfterSeconds} s and call again.' },
  GATEWAY_RESULT_TOO_LARGE: {
    status: 502,
    message:
      'The result of {tool} is {bytes} bytes, more than the gateway passes on ({limit}). Ask for less (a narrower path, a smaller page).',
  },
  GATEWAY_TOOL_DENIED: { status: 403, message: 'An admin has denied {tool} on this gateway. Ask an admin if you need it.' },
  GATEWAY_TOOL_CHANGED: {
    status: 409,
    message:
      'The upstream "{upstream}" changed the definition of {tool} since it was accepted, so opsgate holds it back; nothing ran. An admin reviews the change (opsgate gateway --check --config FILE) and accepts it: opsgate gateway --accept-tool {upstream}/{tool} --config FILE.',
  },
  GATEWAY_TOOL_CHANGE_NOT_FOUND: {
    status: 404,
    message:
      'No changed definition of {tool} on the upstream "{upstream}" waits for acceptance. List the changes with: opsgate gateway --check --config FILE.',
  },
  GATEWAY_TOOL_CHANGE_STALE: {
    status: 409,
    message:
      'The upstream "{upstream}" changed the definition of {tool} again since you reviewed it, so nothing was accepted. Review the newest definition and accept that one.',
  },
  GATEWAY_UPSTREAM_NOT_CONFIGURED: {
    status: 404,
    message:
      'This call came through the MCP gateway\'s upstream "{upstream}", which this process does not have, so it cannot run it here; nothing ran and the call still waits. Start this process with OPSGATE_GATEWAY_CONFIG=FILE, FILE being the gateway configuration that declares "{upstream}" (the one the gateway runs with).',
  },
  GATEWAY_CALL_NOT_FOUND: {
    status: 404,
    message: 'No gateway call of yours has that id here. Use the call id the "waiting for approval" result gave you.',
  },
});
