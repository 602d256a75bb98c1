// The built app served by `vite preview` on a port of its own, for the bench scripts that open it
// in Chromium (run.ts, trace-open.ts).

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** True when nothing listens on the port yet. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * Serves `dist` on 127.0.0.1:`port` and waits until it answers; returns the stop function. Exits
 * when the port is taken (another engineer's server on it would be measured instead of ours).
 */
export async function servePreview(dist: string, port: number): Promise<() => void> {
  if (!(await portFree(port))) {
    console.error(`port ${port} is taken (another preview server?): set BENCH_PORT to a free port`);
    process.exit(1);
  }
  const server = spawn(
    'npx',
    ['vite', 'preview', '--outDir', dist, '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    { stdio: 'ignore', detached: true },
  );
  for (let i = 0; i < 50; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  return () => {
    try {
      if (server.pid) process.kill(-server.pid);
    } catch {
      // already gone
    }
  };
}
