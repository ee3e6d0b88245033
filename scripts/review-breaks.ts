// `node scripts/review-breaks.ts [ID ...]`: re-applies the deliberate breaks of the outside
// test-honesty review of 2026-11-26 (its ten-guard mutation sample M01–M10, every break that
// survived its requirement pass, the core breaks of its log outside every mutated module (B04,
// B17–B19), AR-17 unwired from the troubleshoot agent, the conditional status update issue 36 names, and each default Cedar rule broken at
// its boundary) to a scratch copy of the tracked files, runs
// the tests named for each, and reports whether the break went red. Exit 1 when one stays green or
// no longer applies (the code it breaks moved: update the entry). Slow (one vitest run per break):
// run it by hand or in CI, never inside `npm test`.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export interface ReviewBreak {
  readonly id: string;
  /** What the break takes away, as the review names it. */
  readonly what: string;
  readonly file: string;
  /** Text that occurs exactly once in the file, and what it becomes. */
  readonly find: string;
  readonly replace: string;
  /** The suites that must go red. */
  readonly tests: readonly string[];
}

export const REVIEW_BREAKS: readonly ReviewBreak[] = [
  {
    id: 'M01',
    what: 'the approval hash no longer covers the tool binding (Helm plan hash, SQL changeset hash)',
    file: 'src/core/policy/approval-binding.ts',
    find: 'canonicalJson([APPROVAL_BINDING_VERSION, callId, tool, argsDigest, bindingDigest])',
    replace: 'canonicalJson([APPROVAL_BINDING_VERSION, callId, tool, argsDigest])',
    tests: ['test/core/approval-binding.test.ts', 'src/core/policy'],
  },
  {
    id: 'M02',
    what: 'an approval request is still valid at the millisecond it expires',
    file: 'src/core/runtime/decisions/expire.ts',
    find: 'call.row.expires_at <= decidedAt',
    replace: 'call.row.expires_at < decidedAt',
    tests: ['src/core/runtime/decisions/expire.test.ts'],
  },
  {
    id: 'M03/B16',
    what: 'a requester may approve their own high-risk call (sod-no-self-approval-high-risk at >= 3)',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: 'when { principal == context.requester && context.riskLevel >= 2 };',
    replace: 'when { principal == context.requester && context.riskLevel >= 3 };',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
  {
    id: 'M04',
    what: 'an access may be granted one day longer than its renewal period',
    file: 'src/agents/access/service/eligibility.ts',
    find: 'durationDays <= access.renewal_period) return;',
    replace: 'durationDays <= access.renewal_period + 1) return;',
    tests: ['test/access/just-in-time.test.ts'],
  },
  {
    id: 'M05',
    what: 'the first event sealed with a MAC may lack it',
    file: 'src/core/audit/verify-audit.ts',
    find: '} else if (seq >= macsFrom) {',
    replace: '} else if (seq > macsFrom) {',
    tests: ['test/core/audit-integrity.test.ts'],
  },
  {
    id: 'M06',
    what: 'recovery treats the calls of live runners as orphaned, and those of dead ones as alive',
    file: 'src/core/runtime/recovery.ts',
    find: 'runner === null || !alive.has(runner)',
    replace: 'runner === null || alive.has(runner)',
    // Decided by counts, not by a child process reaching a marker in time: a second instance's
    // recovery must leave a live instance's executing call alone (0 recovered), then recover it
    // (1) once that instance is dead. crash-recovery's kill -9 run waits on a file with a deadline
    // and, on a loaded machine, fails unbroken too, which made the verdict inconclusive.
    tests: ['test/core/replica-recovery.test.ts', 'test/core/recovery-lifecycle.test.ts'],
  },
  {
    id: 'M07',
    what: 'query-only PRAGMAs may be written on the read path',
    file: 'src/agents/sandbox/engines/sql-guard.ts',
    find: '(QUERY_ONLY_PRAGMAS.has(pragma) && arg2 === null)',
    replace: 'QUERY_ONLY_PRAGMAS.has(pragma)',
    tests: ['src/agents/sandbox/engines/sql-guard.test.ts'],
  },
  {
    id: 'M08',
    what: 'the Helm safety net lets through an approval with a hash but no approver',
    file: 'src/agents/helm/middleware/approval-hitl-middleware.ts',
    find: '(!call.approval?.argsHash || !call.approval.approvedBy)',
    replace: '(!call.approval?.argsHash && !call.approval?.approvedBy)',
    tests: ['src/agents/helm/middleware'],
  },
  {
    id: 'M09',
    // The check on each command is the limit; the same check on each line before it is parsed sees
    // the same depth (a line's commands are checked at the line's depth), so breaking that one alone
    // changes nothing a test can see: it only spares parsing a line that is refused anyway.
    what: 'the validator allows one more level of nested wrappers than MAX_NESTING',
    file: 'src/agents/troubleshoot/validator/command-validator.ts',
    find: "if (depth > MAX_NESTING) throw new Blocked(structural('nesting-too-deep', command.segment,",
    replace: "if (depth > MAX_NESTING + 1) throw new Blocked(structural('nesting-too-deep', command.segment,",
    tests: ['src/agents/troubleshoot/validator/command-validator.test.ts'],
  },
  {
    id: 'M10',
    what: "the access tool lets a model-given user_id name someone else's account",
    file: 'src/agents/access/client/catalog-lookup.ts',
    find: "if (resolved.value.id === input.user_id) return { verdict: 'allow'",
    replace: "if (true) return { verdict: 'allow'",
    tests: ['test/access/access-tools.test.ts'],
  },
  {
    id: 'B07',
    what: "the audit's hash recomputation is switched off (pre-MAC events rely on it alone)",
    file: 'src/core/audit/verify-audit.ts',
    find: 'if (recomputed !== row.hash) return fail(',
    replace: 'if (false) return fail(',
    tests: ['test/core/audit-integrity.test.ts'],
  },
  {
    id: 'X3',
    what: "the audit's prev_hash link check is switched off",
    file: 'src/core/audit/verify-audit.ts',
    find: 'if (row.prev_hash !== prevHash) return fail(',
    replace: 'if (false) return fail(',
    tests: ['test/core/audit-integrity.test.ts'],
  },
  {
    id: 'H05',
    what: "the Helm safety-net middleware is removed from the helm agent's middleware list",
    file: 'src/agents/helm/index.ts',
    find: 'middleware: [new HelmApprovalHITLMiddleware(), ',
    replace: 'middleware: [',
    tests: ['test/helm/safety-net.test.ts'],
  },
  {
    id: 'H06',
    what: "a Secret's data: is no longer redacted (only stringData:)",
    file: 'src/agents/helm/service/redact-secrets.ts',
    find: "for (const field of ['data', 'stringData'])",
    replace: "for (const field of ['stringData'])",
    // The tokens chart's Secret carries its key under data: (base64), rendered by the real Helm 4.
    tests: ['test/helm/secret-redaction-real-helm.test.ts'],
  },
  {
    id: 'H02',
    what: 'a rollback request is no longer classified as a Helm workflow',
    file: 'src/agents/helm/workflow/route.ts',
    find: "'uninstall', 'rollback', 'deploy'",
    replace: "'uninstall', 'deploy'",
    tests: ['src/agents/helm/workflow/route.test.ts'],
  },
  {
    id: 'A08',
    what: "the access service's own-account check is removed (the tool-side check masks it)",
    file: 'src/agents/access/service/create-access-service.ts',
    find: 'if (user.username !== caller) throw AccessServiceErrors.ACCESS_FORBIDDEN',
    replace: 'if (false) throw AccessServiceErrors.ACCESS_FORBIDDEN',
    tests: ['test/access/create-access-service.test.ts'],
  },
  {
    id: 'A10',
    what: 'a WRITE access weighs nothing in the access risk score',
    file: 'src/agents/access/risk.ts',
    find: "{ label: 'write', weight: 2,",
    replace: "{ label: 'write', weight: 0,",
    tests: ['src/agents/access/risk.test.ts'],
  },
  {
    id: 'T01',
    what: 'the mkfs / mkswap rule of the command validator is disabled',
    file: 'src/agents/troubleshoot/validator/linux-blocklist.ts',
    find: 'if (/^(?:mkfs(?:\\..+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs)$/.test(c.program)) {',
    replace: 'if (false) {',
    tests: ['src/agents/troubleshoot/validator/command-validator.property.test.ts'],
  },
  {
    id: 'X2',
    what: "the decision authorizer ignores the policy's refusal of an approver",
    file: 'src/core/runtime/decisions/authorize-decision.ts',
    find: '  const verdict = await askMayApprove(context, asItWillRun, approvalsSoFar);\n  if (!verdict.allowed) {',
    replace: '  const verdict = await askMayApprove(context, asItWillRun, approvalsSoFar);\n  if (false) {',
    tests: ['test/core/decision-authorizer.test.ts'],
  },
  {
    id: 'B04',
    what: 'anyone may read any session (the owner-or-approver check is gone)',
    file: 'src/core/runtime/session-access.ts',
    find: 'return row.user_id === actor.userId || hasRole(actor, ROLE_APPROVER);',
    replace: 'return true || row.user_id === actor.userId || hasRole(actor, ROLE_APPROVER);',
    tests: ['test/security/decision-matrix.test.ts'],
  },
  {
    id: 'B17',
    what: 'a requester may approve his own write access (the WRITE clause of sod-no-self-approval-sensitive-access dropped)',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: '(resource.name like "*WRITE*" ||\n   resource.name like "*ADMIN*" ||',
    replace: '(resource.name like "*ADMIN*" ||',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
  {
    id: 'B18',
    what: 'one person may give both approvals a call needs (sod-distinct-approvers off)',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: 'when { context.approvalsSoFar.contains(principal.username) };',
    replace: 'when { false };',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
  {
    id: 'B19',
    what: 'a looping model gets one step more than the step limit (AR-17)',
    file: 'src/core/runtime/turn-engine.ts',
    find: 'if (session.state.turnSteps >= stepLimit) {',
    replace: 'if (session.state.turnSteps > stepLimit) {',
    tests: ['test/troubleshoot/step-limit.test.ts'],
  },
  {
    id: 'AR17',
    what: "the troubleshoot agent's own step limit (MAX_ITERATIONS) is no longer given to the runtime",
    file: 'src/agents/troubleshoot/index.ts',
    find: '  stepLimit: MAX_ITERATIONS,\n',
    replace: '',
    tests: ['test/troubleshoot/step-limit.test.ts'],
  },
  {
    id: 'G-STATUS',
    what: "a call's conditional status update no longer refuses a call decided elsewhere (the session version check out of the way)",
    file: 'src/core/runtime/tool-call-lifecycle.ts',
    find: "if (stale) throw new StaleWriteError('tool call', stale.id);",
    replace: "if (false) throw new StaleWriteError('tool call', stale.id);",
    tests: ['test/core/stale-decision.test.ts'],
  },
  // Issue 36: each default Cedar rule at its boundary (high vs medium vs critical, sensitive vs
  // not, each channel). Stryker mutates only TypeScript, so the rules' own thresholds are broken here.
  {
    id: 'C-HIGH-1',
    what: 'a requester may no longer approve his own medium-risk call (sod-no-self-approval-high-risk at >= 1)',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: 'when { principal == context.requester && context.riskLevel >= 2 };',
    replace: 'when { principal == context.requester && context.riskLevel >= 1 };',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
  {
    id: 'C-ELICIT-3',
    what: 'an MCP elicitation counts as an approval of a high-risk call (elicitation-below-high-risk-only at >= 3)',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: 'when { context.channel == "mcp-elicitation" && context.riskLevel >= 2 };',
    replace: 'when { context.channel == "mcp-elicitation" && context.riskLevel >= 3 };',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
  {
    id: 'C-ELICIT-1',
    what: 'an MCP elicitation no longer counts for a medium-risk call (elicitation-below-high-risk-only at >= 1)',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: 'when { context.channel == "mcp-elicitation" && context.riskLevel >= 2 };',
    replace: 'when { context.channel == "mcp-elicitation" && context.riskLevel >= 1 };',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
  {
    id: 'C-ELICIT-ANY',
    what: 'the elicitation rule applies on every channel, not only to MCP elicitations',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: 'when { context.channel == "mcp-elicitation" && context.riskLevel >= 2 };',
    replace: 'when { context.riskLevel >= 2 };',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
  {
    id: 'C-PROD',
    what: 'a requester may approve his own change to a production target (sod-no-self-approval-production reads another label)',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: 'when { principal == context.requester && context.environment == "production" };',
    replace: 'when { principal == context.requester && context.environment == "prod" };',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
  {
    id: 'C-SENSITIVE',
    what: 'a payroll access is no longer sensitive (one name pattern of sod-no-self-approval-sensitive-access dropped)',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: 'resource.name like "*FINANCE*" ||\n   resource.name like "*PAYROLL*")',
    replace: 'resource.name like "*FINANCE*")',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
  {
    id: 'C-REVOKE',
    what: 'revoking a write access becomes sensitive too (the grant-only condition of sod-no-self-approval-sensitive-access dropped)',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: '  context.tool == "grant_access_to_user" &&\n',
    replace: '',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
  {
    id: 'C-BORROWED',
    what: 'an approver may use a token someone else issued (no-approval-with-a-borrowed-credential never applies)',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: 'when { context.credentialIssuedBy != "" && principal != context.requester };',
    replace: 'when { context.credentialIssuedBy == "nobody" && principal != context.requester };',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
  {
    id: 'C-ISSUER',
    what: "the admin who issued the requester's credential may approve the call",
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: 'when { context.approverIssuedRequesterCredential };',
    replace: 'when { false };',
    tests: ['src/core/policy/cedar/cedar-policy.approvers.test.ts'],
  },
  {
    id: 'C-GATEWAY',
    what: 'a requester may approve his own gateway write although no admin allowed it (sod-gateway-writes misses the gateway agents)',
    file: 'src/core/policy/cedar/default/approvals.cedar',
    find: '  context.agent like "gateway-*" &&',
    replace: '  context.agent like "nothing-*" &&',
    tests: ['src/gateway/upstream-agent.policy.test.ts'],
  },
  {
    id: 'C-AUTO',
    what: 'Agent Mode with Auto-approve runs a high-risk command without asking (the auto-approve rule at < 3)',
    file: 'src/core/policy/cedar/default/calls.cedar',
    find: '  context.riskLevel < 2\n',
    replace: '  context.riskLevel < 3\n',
    tests: ['src/core/policy/cedar/cedar-policy.boundaries.test.ts'],
  },
];

const root = resolve(import.meta.dirname, '..');

/** A copy of the tracked files (with this checkout's node_modules linked) that breaks are applied to. */
function scratchCopy(): string {
  const scratch = mkdtempSync(join(tmpdir(), 'opsgate-breaks-'));
  const files = spawnSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).stdout.split('\0').filter(Boolean);
  // A tracked file deleted in the working tree is left out, as vitest would not see it either.
  for (const file of files.filter((tracked) => existsSync(join(root, tracked)))) {
    mkdirSync(dirname(join(scratch, file)), { recursive: true });
    cpSync(join(root, file), join(scratch, file));
  }
  symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
  return scratch;
}

/** Runs the suites in the scratch copy; undefined when they pass, else the end of vitest's report. */
function suitesFail(scratch: string, tests: readonly string[]): string | undefined {
  const run = spawnSync(process.execPath, [join(scratch, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=dot', ...tests], {
    cwd: scratch,
    encoding: 'utf8',
  });
  return run.status === 0 ? undefined : `${run.stdout}${run.stderr}`.split('\n').slice(-40).join('\n');
}

type Outcome = 'red' | 'GREEN' | 'does not apply' | 'inconclusive: the suites fail unbroken too';

function tryBreak(scratch: string, entry: ReviewBreak): Outcome {
  const path = join(scratch, entry.file);
  const original = readFileSync(path, 'utf8');
  if (original.split(entry.find).length !== 2) return 'does not apply';
  writeFileSync(path, original.replace(entry.find, entry.replace));
  let broken: string | undefined;
  try {
    broken = suitesFail(scratch, entry.tests);
  } finally {
    writeFileSync(path, original);
  }
  if (broken === undefined) return 'GREEN';
  // Red must mean the break: the same suites pass on the unbroken copy (a loaded machine can time them out).
  const unbroken = suitesFail(scratch, entry.tests);
  if (unbroken === undefined) return 'red';
  console.error(unbroken);
  return 'inconclusive: the suites fail unbroken too';
}

function main(): void {
  const asked = process.argv.slice(2);
  const known = new Set(REVIEW_BREAKS.map((entry) => entry.id));
  const unknown = asked.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    console.error(`unknown break ${unknown.join(', ')}; the breaks are: ${[...known].join(', ')}`);
    process.exit(2);
  }
  const chosen = asked.length > 0 ? REVIEW_BREAKS.filter((entry) => asked.includes(entry.id)) : REVIEW_BREAKS;
  const scratch = scratchCopy();
  try {
    console.log('| break | what it takes away | suites | result |');
    console.log('| --- | --- | --- | --- |');
    let failed = 0;
    for (const entry of chosen) {
      const outcome = tryBreak(scratch, entry);
      if (outcome !== 'red') failed += 1;
      console.log(`| ${entry.id} | ${entry.what} | ${entry.tests.join(', ')} | ${outcome} |`);
    }
    if (failed > 0) {
      console.error(
        `${failed} break(s) stayed green, no longer apply or were inconclusive: add a test that fails, update the entry to where the code moved, or run it again on a quieter machine`,
      );
      process.exitCode = 1;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.main) main();
