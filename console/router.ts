// A small history router: the path is the page, the query string its filters.
import { useEffect, useState } from 'preact/hooks';

const CHANGE = 'console:navigate';

export function navigate(to: string, replace = false): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new Event(CHANGE));
  window.scrollTo(0, 0);
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: location.pathname.replace(/\/+$/, '') || '/', query: new URLSearchParams(location.search) });
  const [where, setWhere] = useState(read);
  useEffect(() => {
    const update = () => setWhere(read());
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return where;
}

// Same-page links without a reload; a modified click (new tab) goes to the browser.
export function onLinkClick(e: MouseEvent): void {
  const a = (e.target as Element).closest('a');
  // A link within the page (#…) is the browser's to follow.
  if (
    !a ||
    !a.hasAttribute('href') ||
    a.getAttribute('href')!.startsWith('#') ||
    e.defaultPrevented ||
    e.button !== 0 ||
    e.metaKey ||
    e.ctrlKey ||
    e.shiftKey ||
    a.hasAttribute('download')
  )
    return;
  // getAttribute: an SVG link's href property is not a string (the overview's chart links).
  const url = new URL(a.getAttribute('href') ?? '', location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith('/console') || url.pathname.startsWith('/console/api')) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
}
