// Keeps the URL hash and the store's view in step: the hash is the view schema serialized
// (core/view/schema.ts). A link opens the hosted profile (#profileURL=) with the link's view in one
// request to the worker; zooming pushes history entries, so Back and Forward step through zooms.

import { useEffect } from 'react';
import { pathToNode } from '../core/model/calltree';
import { decodeView, encodeView, sourceUrl, type ViewState } from '../core/view/schema';
import { type ReportData, readReport } from '../export/report';
import type { FileBuffer } from '../worker/protocol';
import { beginOpen, changeView, compareBuffers, namedPlaces, openBuffers, openKept, setReopen } from './jobs';
import { fetchProfile, profileNameFromUrl } from './profileUrl';
import { openReport } from './report';
import { type AppState, useStore } from './store';

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
      ? pathToNode(a.tree, s.focusNode).map((f) => a.profile.frames.name[f])
      : [];
  const fn = a && s.selectedFrame !== null ? a.profile.frames.name[s.selectedFrame] : undefined;
  return { ...s.view, zoom, fn };
}

/** A view read from the URL (Back/Forward): the worker's part through the worker, then the names. */
async function applyUrlView(u: ViewState): Promise<void> {
  const st = useStore.getState();
  if (u.theme) st.setTheme(u.theme);
  const keep = st.view.profiles; // Back/Forward never changes the open profile
  await changeView({ ...u, profiles: keep });
  const a = useStore.getState().analysis;
  if (!a) return;
  const { focusNode, selectedFrame } = namedPlaces(a, u);
  useStore.setState({ focusNode, selectedFrame });
}

/**
 * Opens what a link names: the profile at its URL with the binaries it lists, then its baseline if
 * any (the diff), with the link's view. Returns a cancel function (a cancelled download reports
 * nothing). The bundled example is opened this way too, so its links work.
 */
export function openLink(initial: ViewState): () => void {
  const mainUrl = sourceUrl(initial.profiles.main) ?? '';
  const binUrls = initial.profiles.main.binaries ?? [];
  const ac = new AbortController();
  // Another open begun during the download (a file dropped, say) is what is shown: this gives up.
  const current = beginOpen();
  const gone = () => ac.signal.aborted || !current();
  const progress = (name: string) => (fraction: number) => {
    if (!gone())
      useStore.setState({ status: 'loading', loadingName: name, progress: { phase: 'download', fraction } });
  };
  const fail = (name: string, e: unknown) => {
    if (gone()) return;
    useStore.setState({
      status: useStore.getState().analysis ? 'ready' : 'idle',
      progress: null,
      loadingName: null,
      error: { fileName: name, message: e instanceof Error ? e.message : String(e) },
    });
  };
  const fetchAll = () =>
    Promise.all(
      [mainUrl, ...binUrls].map((u) => fetchProfile(u, progress(profileNameFromUrl(u)), ac.signal)),
    );
  progress(profileNameFromUrl(mainUrl))(0);
  void applyingUrl(async () => {
    let files: FileBuffer[];
    try {
      files = await fetchAll();
    } catch (e) {
      return fail(profileNameFromUrl(mainUrl), e);
    }
    if (gone()) return;
    performance.mark('flamelens:file-received');
    // The link's baseline, if any, then the diff (the worker opens the main profile first).
    const baseUrl = sourceUrl(initial.profiles.base);
    const mainView = baseUrl ? { ...initial, mode: 'graph' as const } : initial;
    if (await openBuffers(files, mainView))
      // A crash or a cancel later opens the link's profile again from its URLs.
      setReopen(async (view) => {
        await openBuffers(await fetchAll(), { ...view, mode: view.mode === 'diff' ? 'graph' : view.mode });
      });
    if (!baseUrl || !useStore.getState().analysis) return;
    try {
      const base = await fetchProfile(baseUrl, progress(profileNameFromUrl(baseUrl)), ac.signal);
      if (gone()) return;
      await compareBuffers([base], initial);
      const a = useStore.getState().analysis;
      if (a) useStore.setState(namedPlaces(a, initial));
    } catch (e) {
      fail(baseUrl, e);
    }
  });
  return () => ac.abort();
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
    let cancel = () => {};
    const kept = initial.profiles.main.source;
    if (report) {
      const r = report;
      void applyingUrl(() => openReport(r, initial));
    } else if (kept?.kind === 'file' && kept.id) {
      // A reload of a local file: it is kept in this browser.
      performance.mark('flamelens:file-received');
      void applyingUrl(() => openKept(kept.id!, initial));
    } else if (sourceUrl(initial.profiles.main)) {
      cancel = openLink(initial);
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
      cancel();
      unsubscribe();
      if (timer !== null) clearTimeout(timer);
      window.removeEventListener('popstate', onPop);
    };
  }, []);
}
