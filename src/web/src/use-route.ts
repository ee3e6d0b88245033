import { useEffect, useMemo, useState } from 'preact/hooks';

/** Hash routes: `#/`, `#/sessions/<id>`, `#/audit`, `#/inbox`, `#/admin` (`#/admin/hosts` jumps to hosts). Hash routing needs no server fallback. */
export type Route =
  | { readonly name: 'sessions' }
  | { readonly name: 'session'; readonly id: string }
  | { readonly name: 'audit'; readonly sessionId?: string }
  | { readonly name: 'inbox' }
  | { readonly name: 'admin' }
  /** A hash no screen has: said so, never the home page in silence. */
  | { readonly name: 'not-found'; readonly path: string };

function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  const session = /^\/sessions\/([^/?]+)$/.exec(path);
  if (session) return { name: 'session', id: decodeURIComponent(session[1]!) };
  const audit = /^\/audit(?:\?session=([^&]+))?$/.exec(path);
  if (audit) return audit[1] ? { name: 'audit', sessionId: decodeURIComponent(audit[1]) } : { name: 'audit' };
  if (path === '/inbox') return { name: 'inbox' };
  if (/^\/admin(\/[a-z]+)?$/.test(path)) return { name: 'admin' };
  if (path === '/' || path === '') return { name: 'sessions' };
  return { name: 'not-found', path };
}

export function useRoute(): Route {
  const [hash, setHash] = useState(() => location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    addEventListener('hashchange', update);
    // The listener starts after the first paint: a hash that changed before then fired its event to
    // nobody, and the page would stay on the screen it started with.
    update();
    return () => removeEventListener('hashchange', update);
  }, []);
  return useMemo(() => parseRoute(hash), [hash]);
}

export function navigate(hash: string): void {
  location.hash = hash;
}
