export { OpsgateError, defineErrorCodes, listErrorCodes, type ErrorSpec } from './opsgate-error.ts';
export { CoreErrors, ToolNotFoundError, ToolAccessDeniedError, ToolMutabilityWarning } from './core-errors.ts';
