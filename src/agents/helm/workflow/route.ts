import type { Route } from '../../../core/agent/define-agent.ts';

/** The spec's classifier table (§2.1). */
const QUERY_KEYWORDS = ['show', 'list', 'get', 'status', 'describe', 'search', 'check'] as const;
const WORKFLOW_KEYWORDS = ['install', 'upgrade', 'update', 'delete', 'uninstall', 'rollback', 'deploy'] as const;

/**
 * The supervisor's classification by keywords: the earliest keyword of either table decides;
 * no keyword means the query path (read-only tools, so a misroute can never change anything).
 */
export function classifyHelmRequest(input: string): Exclude<Route, 'standard'> {
  const words = input.toLowerCase().match(/[a-z]+/g) ?? [];
  for (const word of words) {
    if ((WORKFLOW_KEYWORDS as readonly string[]).includes(word)) return 'workflow';
    if ((QUERY_KEYWORDS as readonly string[]).includes(word)) return 'query';
  }
  return 'query';
}
