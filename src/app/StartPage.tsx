// What the page shows before a profile is open: what can be dropped, and two bundled examples.

import { useEffect, useState } from 'react';
import { formatBytes } from '../core/text/units';
import { DEFAULT_VIEW, encodeView, type ViewState } from '../core/view/schema';
import { FilePicker } from './FilePicker';
import { beginOpen, compareBuffers, openBuffers, openKept } from './jobs';
import { RememberedFiles } from './RememberedFiles';
import { forgetRecent, listRecent, type RecentEntry } from './recent';
import { openLink } from './useUrlState';

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

async function fetchAll(urls: string[]) {
  return Promise.all(
    urls.map(async (url) => {
      const res = await fetch(url);
      if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
      return { name: url.slice(url.lastIndexOf('/') + 1), data: await res.arrayBuffer() };
    }),
  );
}

export function StartPage() {
  const [failed, setFailed] = useState<string | null>(null);
  // Opened as a link (#profileURL=…&bin=…), so the URL of what it shows can be shared.
  const openExample = () => {
    const [profile, ...binaries] = EXAMPLE.files;
    const view: ViewState = {
      ...DEFAULT_VIEW,
      profiles: { main: { source: { kind: 'url', url: profile }, binaries } },
    };
    history.replaceState(null, '', `${location.pathname}${location.search}${encodeView(view)}`);
    openLink(view);
  };
  const openComparison = async () => {
    const current = beginOpen();
    try {
      const [main, base] = await Promise.all([
        fetchAll(COMPARE_EXAMPLE.files),
        fetchAll([COMPARE_EXAMPLE.base]),
      ]);
      if (!current()) return; // another profile opened during the download
      await openBuffers(main);
      await compareBuffers(base);
    } catch (e) {
      if (current()) setFailed((e as Error).message);
    }
  };
  return (
    <main className="start">
      <h2>Drop a CPU profile (or a heap profile) anywhere on this page</h2>
      <p>
        gperftools CPU (<code>CPUPROFILE=out.prof ./prog</code>) and heap profiles, 32- or 64-bit, either byte
        order; pprof protobuf (<code>.pb.gz</code>); <code>perf script</code> text; DCPI;{' '}
        <code>pprof --raw</code> output; folded stacks (also with two counts, from <code>difffolded.pl</code>
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
      {failed && <p role="alert">Could not load the example: {failed}</p>}
      <RecentProfiles />
      <RememberedFiles />
    </main>
  );
}

/** Profiles opened from local files before, kept in this browser (never uploaded). */
function RecentProfiles() {
  const [recent, setRecent] = useState<RecentEntry[] | null>(null);
  useEffect(() => {
    void listRecent().then(setRecent);
  }, []);
  if (!recent || recent.length === 0) return null;
  const forget = async (id?: string) => {
    await forgetRecent(id);
    setRecent(await listRecent());
  };
  return (
    <section className="recent" aria-label="Recent profiles">
      <h3>Recent profiles</h3>
      <p className="muted">Kept in this browser with the binaries dropped for them; never uploaded.</p>
      <ul>
        {recent.map((e) => (
          <li key={e.id}>
            <button type="button" onClick={() => void openKept(e.id, DEFAULT_VIEW)}>
              {e.name}
            </button>{' '}
            <span className="muted">
              {e.files.length > 1 ? `+ ${e.files.length - 1} files · ` : ''}
              {formatBytes(e.size)} · {new Date(e.when).toLocaleString()}
            </span>{' '}
            <button type="button" aria-label={`Forget ${e.name}`} onClick={() => void forget(e.id)}>
              Forget
            </button>
          </li>
        ))}
      </ul>
      <button type="button" onClick={() => void forget()}>
        Forget all
      </button>
    </section>
  );
}
