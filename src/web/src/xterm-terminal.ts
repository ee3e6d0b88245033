import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';

/** A read-only xterm.js terminal that fits its container. */
export function mountTerminal(element: HTMLElement): { write(data: string): void; dispose(): void } {
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const terminal = new Terminal({
    disableStdin: true,
    convertEol: true,
    cursorBlink: false,
    scrollback: 5000,
    fontSize: 13,
    theme: dark ? { background: '#0b0f14', foreground: '#d6dde6' } : { background: '#fbfcfd', foreground: '#1d2530', cursor: '#1d2530' },
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  terminal.open(element);
  fit.fit();
  const observer = new ResizeObserver(() => fit.fit());
  observer.observe(element);
  return {
    write: (data) => terminal.write(data),
    dispose: () => {
      observer.disconnect();
      terminal.dispose();
    },
  };
}
