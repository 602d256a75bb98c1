// The page's connect-src, narrowed to the origins of the link it was opened with: index.html's
// policy allows any http(s) origin (a link may name any server), and a second policy added at
// startup can only narrow it (policies intersect), before any fetch. A page opened without a link
// keeps the wide one: its user may open any URL from the start page. Not in the dev server, whose
// page has no policy. A policy cannot be widened again in the same document, so a link to another
// server pasted into the same tab is opened by loading the page again (see linkNeedsNewPage).

import { linkOrigins } from '../core/view/schema';

/** The origins this page may fetch from besides its own; null while it is not narrowed. */
let narrowedTo: ReadonlySet<string> | null = null;

/** Narrows this page's connect-src to what its link names (at startup, before any fetch). */
export function narrowConnectSrc(): void {
  if (!document.querySelector('meta[http-equiv="Content-Security-Policy"]')) return;
  if (!/(?:^#|&)(?:profileURL|baseURL|bin)=/.test(location.hash)) return;
  const origins = linkOrigins(location.hash);
  const meta = document.createElement('meta');
  meta.httpEquiv = 'Content-Security-Policy';
  meta.content = `connect-src ${["'self'", ...origins].join(' ')}`;
  document.head.appendChild(meta);
  narrowedTo = new Set(origins);
}

/**
 * Whether the link in `hash` downloads from an origin this page's policy no longer allows (a link
 * to another server pasted into the tab's address bar): only a new page, whose policy is narrowed
 * to that link, can fetch it.
 */
export function linkNeedsNewPage(hash: string): boolean {
  const allowed = narrowedTo;
  if (allowed === null) return false;
  return linkOrigins(hash).some((o) => o !== location.origin && !allowed.has(o));
}
