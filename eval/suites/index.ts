import type { Suite } from '../scenario.ts';
import { accessSuite } from './access.ts';

/** Every agent's scenario suite. */
export const suites: readonly Suite[] = [accessSuite];
