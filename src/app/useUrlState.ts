// Keeps the URL hash and the store's view in step: the hash is the view schema serialized
// (core/view/schema.ts). At startup it opens what the hash names: a workspace kept in this browser
// (#ws=), a hosted profile (#profileURL=), or the HTML report this page is; zooming pushes history
// entries, so Back and Forward step through zooms (and back to workspaces shown before).

import { useEffect } from 'react';
import { pathToNode } from '../core/model/calltree';
import { frameName } from '../core/text/frame-text';
import { decodeView, encodeView, sourceUrl, type ViewState } from '../core/view/schema';
import { type ReportData, readReport } from '../export/report';
import { linkNeedsNewPage } from './connectPolicy';
import { openLink, openWorkspace } from './open';
import { openReport } from './report';
import { type AppState, useStore } from './store';
import { changeView } from './view';
import { namedPlaces } from './worker';
import { rememberView } from './workspaceStore';

/** True while state read from the URL is being applied: the store must not write it back. */
let applying = false;

async function applyingUrl(f: () => void | Promise<void>): Promise<void> {
  applying = true;
  try {
    await f();
  } finally {
    applying = false;
  }
}

/** The view on screen with its zoom and selection named: what the hash says. */
export function viewOnScreen(s: AppState): ViewState {
  const a = s.analysis;
  const zoom =
    a && s.focusNode > 0 && s.focusNode < a.tree.count
      ? pathToNode(a.tree, s.focusNode).map((f) => frameName(a.profile.frames, f))
      : [];
  const fn = a && s.selectedFrame !== null ? frameName(a.profile.frames, s.selectedFrame) : undefined;
  return { ...s.view, zoom, fn };
}

/**
 * A view read from the URL (Back/Forward): another workspace is opened; in the same one, the
 * worker's part goes through the worker, then the names.
 */
async function applyUrlView(u: ViewState): Promise<void> {
  const st = useStore.getState();
  if (u.theme) st.setTheme(u.theme);
  if (u.workspace && u.workspace !== st.view.workspace) return openWorkspace(u.workspace, u);
  // A link to another hosted profile (pasted into this tab's address bar): opened, as on a page
  // load (it was taken for a view of what is open, and the page wrote its own link back over it).
  const link = sourceUrl(u.profiles.main);
  if (!u.workspace && link !== undefined && link !== sourceUrl(st.view.profiles.main)) {
    // A server this page's narrowed policy does not allow: the page again, narrowed to the link.
    if (linkNeedsNewPage(location.hash)) return location.reload();
    return openLink(u);
  }
  // Within one workspace, Back/Forward change the view of what is open, not what is open.
  await changeView({ ...u, workspace: st.view.workspace, profiles: st.view.profiles });
  const a = useStore.getState().analysis;
  if (!a) return;
  const { focusNode, selectedFrame } = namedPlaces(a, u);
  useStore.setState({ focusNode, selectedFrame });
}

export function useUrlState(): void {
  useEffect(() => {
    // An HTML report opens its own profiles with its own view (or the URL's, after a reload).
    let report: ReportData | null = null;
    try {
      report = readReport(document);
    } catch (e) {
      useStore.setState({ error: { fileName: 'this report', message: (e as Error).message } });
    }
    const initial = decodeView(location.hash.length > 1 ? location.hash : (report?.hash ?? ''));
    void applyingUrl(() => {
      useStore.setState({ view: initial });
      if (initial.theme) useStore.getState().setTheme(initial.theme);
    });
    if (report) {
      const r = report;
      void applyingUrl(() => openReport(r, initial));
    } else if (initial.workspace) {
      // A reload: what was shown is kept in this browser (else its link, if it has one).
      performance.mark('flamelens:file-received');
      void applyingUrl(() => openWorkspace(initial.workspace!, initial));
    } else if (sourceUrl(initial.profiles.main)) {
      void applyingUrl(() => openLink(initial));
    }

    let lastZoom = JSON.stringify(initial.zoom);
    /** The view on screen into the URL (a new zoom as a history entry of its own). */
    const writeUrl = () => {
      timer = null;
      const s = useStore.getState();
      if (s.status === 'loading' || applying) return;
      const view = viewOnScreen(s);
      const hash = encodeView(view);
      if (hash === location.hash || (hash === '' && location.hash === '')) return;
      const zoom = JSON.stringify(view.zoom);
      const url = `${location.pathname}${location.search}${hash || '#'}`;
      if (zoom !== lastZoom) history.pushState(null, '', url);
      else history.replaceState(null, '', url);
      lastZoom = zoom;
      // Recent profiles open a workspace with the view it was last shown with.
      if (view.workspace) void rememberView(view.workspace, hash);
    };
    // Written in a task of its own, once for the changes of one task: in the task that applies a
    // view (a 1 GB profile's sandwich) the same-document navigation took 16–65 ms of Chromium's.
    let timer: ReturnType<typeof setTimeout> | null = null;
    const unsubscribe = useStore.subscribe((s) => {
      if (s.status === 'loading' || applying || timer !== null) return;
      timer = setTimeout(writeUrl, 0);
    });

    const onPop = () => {
      const u = decodeView(location.hash);
      lastZoom = JSON.stringify(u.zoom);
      void applyingUrl(() => applyUrlView(u));
    };
    window.addEventListener('popstate', onPop);
    return () => {
      unsubscribe();
      if (timer !== null) clearTimeout(timer);
      window.removeEventListener('popstate', onPop);
    };
  }, []);
}
