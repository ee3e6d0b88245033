import { defineErrorCodes } from '../../../src/core/errors/index.ts';

/** Errors of the dns agent. Messages say what happened and what to do next. */
export const DnsErrors = defineErrorCodes({
  DNS_ZONE_NOT_FOUND: { status: 404, message: 'There is no zone "{zone}". Use one of: {zones}.' },
  DNS_RECORD_NOT_FOUND: {
    status: 404,
    message: 'The zone {zone} has no {type} record named {name}. Look up another name, or create it with change_record.',
  },
});
