// What the page shows before a profile is open: what can be dropped, and two bundled examples.

import { useEffect, useState } from 'react';
import { formatBytes } from '../core/text/units';
import { DEFAULT_VIEW, decodeView, encodeView, type ViewState } from '../core/view/schema';
import { type Workspace, workspaceSize, workspaceTitle } from '../core/view/workspace';
import { FilePicker } from './FilePicker';
import { openLink, openWorkspace } from './open';
import { RememberedFiles } from './RememberedFiles';
import { ResetLocalData } from './ResetLocalData';
import { forgetWorkspace, listWorkspaces } from './workspaceStore';

/** A real libprofiler profile of a small C++ program, with the binary that symbolizes it. */
export const EXAMPLE = {
  files: ['examples/cxx_demangle.prof', 'examples/cxx_demangle'],
  label: 'cxx_demangle.prof + its binary (gperftools, 64-bit, C++)',
};

/** Two workloads of one program (test/fixtures/src/workload.c), recorded by libprofiler. */
export const COMPARE_EXAMPLE = {
  files: ['examples/workload_b.prof', 'examples/workload'],
  base: 'examples/workload_a.prof',
  label: 'workload_a.prof (mostly hashing) → workload_b.prof (mostly sorting), with their binary',
};

export function StartPage() {
  // Both open as links (#profileURL=…&bin=…[&baseURL=…]): a reload opens them again, and the URL
  // of what they show can be shared.
  const openAsLink = (view: ViewState) => {
    history.replaceState(null, '', `${location.pathname}${location.search}${encodeView(view)}`);
    void openLink(view);
  };
  const openExample = () => {
    const [profile, ...binaries] = EXAMPLE.files;
    openAsLink({ ...DEFAULT_VIEW, profiles: { main: { source: { kind: 'url', url: profile }, binaries } } });
  };
  const openComparison = () => {
    const [profile, ...binaries] = COMPARE_EXAMPLE.files;
    openAsLink({
      ...DEFAULT_VIEW,
      mode: 'diff',
      profiles: {
        main: { source: { kind: 'url', url: profile }, binaries },
        base: { source: { kind: 'url', url: COMPARE_EXAMPLE.base } },
      },
    });
  };
  return (
    <main className="start">
      <h2>Drop a CPU profile (or a heap profile) anywhere on this page</h2>
      <p>
        gperftools CPU (<code>CPUPROFILE=out.prof ./prog</code>) and heap profiles, 32- or 64-bit, either byte
        order; pprof protobuf (<code>.pb.gz</code>); <code>perf.data</code> and <code>perf script</code> text;
        DCPI; <code>pprof --raw</code> output; folded stacks (also with two counts, from{' '}
        <code>difffolded.pl</code>
        ); gzipped or not. Drop the program’s binaries and shared libraries with the profile to see function
        names, or a folder holding the profile and them, or a bundle made by <code>flamelens bundle</code>.
        Nothing is uploaded: every file is read in your browser.
      </p>
      <p>
        <FilePicker label="Open a folder (a profile with its binaries)" text="Open a folder…" folder />
      </p>
      <p>
        <button type="button" className="primary" onClick={openExample}>
          Open the example profile
        </button>{' '}
        <span className="muted">{EXAMPLE.label}</span>
      </p>
      <p>
        <button type="button" onClick={openComparison}>
          Open the comparison example
        </button>{' '}
        <span className="muted">{COMPARE_EXAMPLE.label}</span>
      </p>
      <RecentProfiles />
      <RememberedFiles />
      <p className="muted local-data">
        What this page keeps in this browser (recent profiles, remembered symbol files, settings) is never
        uploaded. <ResetLocalData />
      </p>
    </main>
  );
}

/** Workspaces opened before, kept in this browser (never uploaded). */
function RecentProfiles() {
  const [recent, setRecent] = useState<Workspace[] | null>(null);
  useEffect(() => {
    void listWorkspaces().then(setRecent);
  }, []);
  if (!recent || recent.length === 0) return null;
  const forget = async (id?: string) => {
    await forgetWorkspace(id);
    setRecent(await listWorkspaces());
  };
  return (
    <section className="recent" aria-label="Recent profiles">
      <h3>Recent profiles</h3>
      <p className="muted">Kept in this browser with the files opened with them; never uploaded.</p>
      <ul>
        {recent.map((w) => {
          const title = workspaceTitle(w);
          const others =
            w.inputs.length - w.inputs.filter((i) => i.role === 'profile' || i.role === 'baseline').length;
          return (
            <li key={w.id}>
              <button
                type="button"
                onClick={() => void openWorkspace(w.id, { ...decodeView(w.view), workspace: w.id })}
              >
                {title}
              </button>{' '}
              <span className="muted">
                {others > 0 ? `+ ${others} files · ` : ''}
                {formatBytes(workspaceSize(w))} · {new Date(w.when).toLocaleString()}
              </span>{' '}
              <button type="button" aria-label={`Forget ${title}`} onClick={() => void forget(w.id)}>
                Forget
              </button>
            </li>
          );
        })}
      </ul>
      <button type="button" onClick={() => void forget()}>
        Forget all
      </button>
    </section>
  );
}
