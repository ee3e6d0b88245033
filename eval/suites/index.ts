import type { Suite } from '../scenario.ts';
import { accessSuite } from './access.ts';
import { helmSuite } from './helm.ts';
import { sandboxSuite } from './sandbox.ts';
import { troubleshootSuite } from './troubleshoot.ts';

/** Every agent's scenario suite. */
export const suites: readonly Suite[] = [accessSuite, helmSuite, troubleshootSuite, sandboxSuite];
