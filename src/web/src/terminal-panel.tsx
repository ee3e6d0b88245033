import { useEffect, useRef, useState } from 'preact/hooks';

interface TerminalHandle {
  write(data: string): void;
  dispose(): void;
}

/**
 * The troubleshoot shell, live and read-only. xterm.js is loaded only when this panel mounts, so
 * sessions without a terminal never download it.
 */
export function TerminalPanel({ chunks }: { chunks: readonly string[] }) {
  const host = useRef<HTMLDivElement>(null);
  const handle = useRef<TerminalHandle | undefined>(undefined);
  const written = useRef(0);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    let cancelled = false;
    void import('./xterm-terminal.ts').then(({ mountTerminal }) => {
      if (cancelled || !host.current) return;
      handle.current = mountTerminal(host.current);
      setReady(true);
    });
    return () => {
      cancelled = true;
      handle.current?.dispose();
      handle.current = undefined;
      written.current = 0;
    };
  }, []);
  useEffect(() => {
    if (!ready || !handle.current) return;
    for (const chunk of chunks.slice(written.current)) handle.current.write(chunk);
    written.current = chunks.length;
  }, [chunks, ready]);
  return (
    <section class="terminal-panel" aria-label="Terminal (read-only)" data-testid="terminal">
      <div class="terminal-head">Terminal · read-only {ready ? '' : '(loading…)'}</div>
      <div class="terminal-host" ref={host} />
    </section>
  );
}
