/**
 * What a Helm operation risks, in words for the approver (the plan's `risks`, shown at gate 2):
 * the service's own findings (a chart version change, a failed current revision, a replaced
 * release), then what the manifests say: deleted resources, a lost history, objects that render
 * differently each time. The tools' risk levels (install, upgrade and rollback are high, uninstall
 * critical) are declared with each tool in `mcp/tool-catalog.ts`.
 */
export function planRisks(
  input: { readonly operation: string; readonly risks?: readonly string[]; readonly volatile?: readonly string[] },
  removed: readonly string[],
): string[] {
  const risks = [...(input.risks ?? [])];
  if (removed.length > 0) risks.push(`${removed.length} resource(s) will be deleted: ${removed.join(', ')}`);
  if (input.operation === 'uninstall') risks.push('uninstall removes the release history; a rollback is not possible afterwards');
  if (input.volatile && input.volatile.length > 0)
    risks.push(
      `the chart renders ${input.volatile.join(', ')} differently every time (random or time functions): the applied content of these objects will differ from this preview`,
    );
  return risks;
}
