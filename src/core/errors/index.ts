export { CoreErrors, ToolAccessDeniedError, ToolMutabilityWarning, ToolNotFoundError } from './core-errors.ts';
export { defineErrorCodes, type ErrorSpec, listErrorCodes, OpsgateError } from './opsgate-error.ts';
