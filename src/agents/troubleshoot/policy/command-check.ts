import type { ValidatorVerdict } from '../../../core/tools/index.ts';
import type { CommandCheck } from '../tools/deps.ts';
import { createCommandValidator } from '../validator/index.ts';
import type { SyncCommandCheck } from './policy.ts';

/** The `CommandValidator` (validator/) as the tools' check: Linux rules unless the host is Windows. */
export async function createCommandCheck(): Promise<{ check: CommandCheck; checkSync: SyncCommandCheck }> {
  const validator = await createCommandValidator();
  const checkSync: SyncCommandCheck = (command, os) => {
    const verdict = validator.validate(command, os);
    const result: ValidatorVerdict = {
      verdict: verdict.verdict,
      reason: verdict.reason,
      segment: verdict.segment,
      ...(verdict.rule ? { rule: verdict.rule } : {}),
      ...(verdict.category ? { category: verdict.category } : {}),
    };
    return result;
  };
  return { check: checkSync, checkSync };
}
