/**
 * The workflow phases of a workflow-path session, the current one marked. Only phases this run
 * went through (since it last entered the first phase) get a ✓; a phase it passed without running
 * shows "–", and nothing after the current phase is marked done because an earlier run reached it.
 */
export function PhaseStepper({
  phases,
  current,
  history,
}: {
  phases: ReadonlyArray<{ name: string; title: string }>;
  current: string;
  history: ReadonlyArray<{ phase: string }>;
}) {
  const currentIndex = phases.findIndex((p) => p.name === current);
  const lastStart = history.map((h) => h.phase).lastIndexOf(phases[0]?.name ?? '');
  const visited = new Set(history.slice(Math.max(lastStart, 0)).map((h) => h.phase));
  return (
    <ol class="stepper" aria-label="Workflow phases" data-testid="phase-stepper">
      {phases.map((phase, index) => {
        const state = index === currentIndex ? 'current' : index > currentIndex ? 'todo' : visited.has(phase.name) ? 'done' : 'skipped';
        return (
          <li key={phase.name} class={state} aria-current={state === 'current' ? 'step' : undefined}>
            <span class="dot" title={state === 'skipped' ? 'not run' : undefined}>
              {state === 'done' ? '✓' : state === 'skipped' ? '–' : index + 1}
            </span>
            {phase.title}
          </li>
        );
      })}
    </ol>
  );
}
