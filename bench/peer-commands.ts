/**
 * The two peer command guards' own test lines (test/fixtures/peer-commands, rebuilt by
 * scripts/extract-peer-corpora.ts), judged by the troubleshoot validator and risk assessor.
 *
 * - An ordinary line (the peer allows it) that the validator blocks is a false positive.
 * - A destructive line (the peer denies it) is caught when the validator blocks it or its risk is
 *   high or critical: then it never runs without a person other than the requester, and Agent Mode
 *   does not auto-run it. `blocked` counts the validator's refusals alone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerCorpus } from '../scripts/extract-peer-corpora.ts';
import type { CommandRiskAssessor } from '../src/agents/troubleshoot/risk.ts';
import type { CommandValidator } from '../src/agents/troubleshoot/validator/index.ts';

export const PEER_CORPORA = ['dcg', 'claude-code-safety-net'] as const;
const LEVELS = ['low', 'medium', 'high', 'critical'] as const;
type Level = (typeof LEVELS)[number];

export interface PeerJudgement {
  readonly lines: number;
  readonly blocked: number;
  /** Blocked, or allowed at high or critical risk. */
  readonly caught: number;
  readonly levels: Readonly<Record<Level, number>>;
  /** The lines on the wrong side: ordinary ones blocked, destructive ones neither blocked nor ≥ high. */
  readonly wrong: readonly string[];
}

export interface PeerScore {
  readonly name: string;
  readonly origin: string;
  readonly ordinary: PeerJudgement;
  readonly destructive: PeerJudgement;
}

export function loadPeerCorpus(name: (typeof PEER_CORPORA)[number]): PeerCorpus {
  return JSON.parse(readFileSync(join(import.meta.dirname, '../test/fixtures/peer-commands', `${name}.json`), 'utf8')) as PeerCorpus;
}

function judge(
  commands: readonly string[],
  validator: CommandValidator,
  assessor: CommandRiskAssessor,
  destructive: boolean,
): PeerJudgement {
  const levels: Record<Level, number> = { low: 0, medium: 0, high: 0, critical: 0 };
  const wrong: string[] = [];
  let blocked = 0;
  let caught = 0;
  for (const command of commands) {
    const level = assessor.assess(command, 'linux').level as Level;
    const isBlocked = validator.validate(command, 'linux').verdict === 'block';
    levels[level]++;
    if (isBlocked) blocked++;
    const isCaught = isBlocked || level === 'high' || level === 'critical';
    if (isCaught) caught++;
    if (destructive ? !isCaught : isBlocked) wrong.push(command);
  }
  return { lines: commands.length, blocked, caught, levels, wrong };
}

export function scorePeerCorpora(validator: CommandValidator, assessor: CommandRiskAssessor): PeerScore[] {
  return PEER_CORPORA.map((name) => {
    const corpus = loadPeerCorpus(name);
    const of = (expected: 'allow' | 'deny') => corpus.cases.filter((line) => line.expected === expected).map((line) => line.command);
    return {
      name,
      origin: `${corpus.repo}@${corpus.commit.slice(0, 12)}`,
      ordinary: judge(of('allow'), validator, assessor, false),
      destructive: judge(of('deny'), validator, assessor, true),
    };
  });
}
