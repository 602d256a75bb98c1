// What the page shows before a profile is open.

import { useState } from 'react';
import { openBuffers } from './jobs';

/** A real libprofiler profile of a small C++ program, with the binary that symbolizes it. */
export const EXAMPLE = {
  files: ['examples/cxx_demangle.prof', 'examples/cxx_demangle'],
  label: 'cxx_demangle.prof + its binary (gperftools, 64-bit, C++)',
};

export function StartPage() {
  const [failed, setFailed] = useState<string | null>(null);
  const openExample = async () => {
    performance.mark('flamelens:file-received');
    try {
      const files = await Promise.all(
        EXAMPLE.files.map(async (url) => {
          const res = await fetch(url);
          if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
          return { name: url.slice(url.lastIndexOf('/') + 1), buffer: await res.arrayBuffer() };
        }),
      );
      await openBuffers(files);
    } catch (e) {
      setFailed((e as Error).message);
    }
  };
  return (
    <main className="start">
      <h2>Drop a CPU profile anywhere on this page</h2>
      <p>
        gperftools (<code>CPUPROFILE=out.prof ./prog</code>) 32- or 64-bit, either byte order; DCPI;{' '}
        <code>pprof --raw</code> output; folded stacks; gzipped or not. Nothing is uploaded: the file is read
        in your browser.
      </p>
      <p>
        <button type="button" className="primary" onClick={openExample}>
          Open the example profile
        </button>{' '}
        <span className="muted">{EXAMPLE.label}</span>
      </p>
      {failed && <p role="alert">Could not load the example: {failed}</p>}
    </main>
  );
}
