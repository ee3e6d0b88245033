/** The workflow phases of a workflow-path session, the current one marked. */
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
  const visited = new Set(history.map((h) => h.phase));
  return (
    <ol class="stepper" aria-label="Workflow phases" data-testid="phase-stepper">
      {phases.map((phase, index) => {
        const state = index === currentIndex ? 'current' : index < currentIndex || visited.has(phase.name) ? 'done' : 'todo';
        return (
          <li key={phase.name} class={state} aria-current={state === 'current' ? 'step' : undefined}>
            <span class="dot">{state === 'done' ? '✓' : index + 1}</span>
            {phase.title}
          </li>
        );
      })}
    </ol>
  );
}
