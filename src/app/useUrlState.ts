// Keeps the URL hash and the store in step: a link opens the hosted profile (#profileURL=) and
// restores the view; zooming pushes history entries, so Back and Forward step through zooms.

import { useEffect } from 'react';
import { pathToNode } from '../core/model/calltree';
import { loadProfileFromHash } from './profileUrl';
import { type AppState, setLocalFileHook, useStore } from './store';
import { decodeUrlState, encodeUrlState, nodeForPath, type UrlState } from './urlState';

/** The view part of a decoded hash, waiting for its profile to arrive. */
let pending: UrlState | null = null;
/** The URL the open profile came from, kept in the hash while that profile is shown. */
let sourceUrl: string | undefined;
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

function currentState(s: AppState): UrlState {
  const a = s.analysis;
  const zoom =
    a && s.focusNode > 0 && s.focusNode < a.tree.count
      ? pathToNode(a.tree, s.focusNode).map((f) => a.profile.frames.name[f])
      : undefined;
  return {
    profileURL: sourceUrl,
    orientation: s.orientation,
    inverted: s.inverted,
    sandwich: s.mode === 'sandwich' ? s.sandwich?.name : undefined,
    zoom,
    search: s.search.text || undefined,
    regex: s.search.regex,
    fn: a && s.selectedFrame !== null ? a.profile.frames.name[s.selectedFrame] : undefined,
    transforms: s.transforms,
    theme: s.themeChosen ? s.theme : undefined,
  };
}

/** Applies the view state that needs no profile. */
function applyImmediate(u: UrlState) {
  const st = useStore.getState();
  st.set({
    orientation: u.orientation ?? 'flame',
    search: { text: u.search ?? '', regex: u.regex ?? true },
  });
  if (u.theme) st.setTheme(u.theme);
}

/** Applies the view state that names functions of the open profile. */
async function applyToProfile(u: UrlState) {
  const st = useStore.getState();
  if (!st.analysis) return;
  const transforms = u.transforms ?? [];
  const inverted = u.inverted ?? false;
  if (JSON.stringify(transforms) !== JSON.stringify(st.transforms) || inverted !== st.inverted) {
    await st.setViewSpec(transforms, inverted);
  }
  const a = useStore.getState().analysis;
  if (!a) return;
  const frameByName = (name: string) => a.profile.frames.name.indexOf(name);
  st.setFocus(u.zoom ? nodeForPath(a.tree, u.zoom, (f) => a.profile.frames.name[f]) : 0);
  const fn = u.fn ? frameByName(u.fn) : -1;
  st.selectFrame(fn >= 0 ? fn : null);
  if (u.sandwich) {
    const f = frameByName(u.sandwich);
    if (f >= 0) await st.showSandwich(f);
  } else if (useStore.getState().mode === 'sandwich') {
    await st.showSandwich(null);
  }
}

export function useUrlState(): void {
  useEffect(() => {
    // Opening a local file: the link no longer describes what is shown.
    setLocalFileHook(() => {
      sourceUrl = undefined;
      pending = null;
    });
    const initial = decodeUrlState(location.hash);
    void applyingUrl(() => applyImmediate(initial));
    pending = initial;
    let cancel = () => {};
    if (initial.profileURL) {
      const st = useStore.getState();
      cancel = loadProfileFromHash(location.hash, {
        onProgress: (fraction, name) =>
          useStore.setState({
            status: 'loading',
            loadingName: name,
            progress: { phase: 'download', fraction },
          }),
        onLoaded: (file) => {
          sourceUrl = initial.profileURL;
          performance.mark('flamelens:file-received');
          void st.openBuffers([file]);
        },
        onError: (name, message) =>
          useStore.setState({
            status: useStore.getState().analysis ? 'ready' : 'idle',
            progress: null,
            loadingName: null,
            error: { fileName: name, message },
          }),
      });
    }

    let lastZoom = JSON.stringify(initial.zoom ?? []);
    const unsubscribe = useStore.subscribe((s, prev) => {
      // A link's view state applies once, to the first profile that arrives after it.
      if (s.profileSerial !== prev.profileSerial && pending) {
        const u = pending;
        pending = null;
        void applyingUrl(() => applyToProfile(u));
        return;
      }
      if (s.status === 'loading' || applying) return;
      const state = currentState(s);
      const hash = encodeUrlState(state);
      if (hash === location.hash || (hash === '' && location.hash === '')) return;
      const zoom = JSON.stringify(state.zoom ?? []);
      const url = `${location.pathname}${location.search}${hash || '#'}`;
      if (zoom !== lastZoom) history.pushState(null, '', url);
      else history.replaceState(null, '', url);
      lastZoom = zoom;
    });

    const onPop = () => {
      const u = decodeUrlState(location.hash);
      lastZoom = JSON.stringify(u.zoom ?? []);
      void applyingUrl(async () => {
        applyImmediate(u);
        await applyToProfile(u);
      });
    };
    window.addEventListener('popstate', onPop);
    return () => {
      cancel();
      unsubscribe();
      window.removeEventListener('popstate', onPop);
    };
  }, []);
}
