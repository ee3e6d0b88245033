import type { TargetOs } from '../types.ts';

/** One line of the validator corpus. */
export interface CorpusCase {
  readonly os: TargetOs;
  readonly command: string;
  /** Where the line comes from: GTFOBins, LOLBAS, a public bypass report, or everyday operations. */
  readonly source: string;
}

export function linux(source: string, ...commands: string[]): CorpusCase[] {
  return commands.map((command) => ({ os: 'linux', command, source }));
}

export function windows(source: string, ...commands: string[]): CorpusCase[] {
  return commands.map((command) => ({ os: 'windows', command, source }));
}
