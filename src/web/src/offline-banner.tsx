import { useEffect, useState } from 'preact/hooks';

/**
 * A banner while the live connection is down: it says what happens (automatic reconnect) and that
 * nothing typed is lost. Shown only after the connection stayed down for a moment, so a normal
 * page load does not flash it.
 */
export function OfflineBanner({ connected }: { connected: boolean }) {
  const [show, setShow] = useState(false);
  useEffect(() => {
    if (connected) {
      setShow(false);
      return;
    }
    const timer = setTimeout(() => setShow(true), 1500);
    return () => clearTimeout(timer);
  }, [connected]);
  if (!show) return null;
  return (
    <div class="offline-banner" role="status" data-testid="offline-banner">
      <strong>Offline.</strong> The connection to the opsgate server is lost; reconnecting automatically. What you type is kept and can be
      sent once the connection is back.
    </div>
  );
}
