// File Handling API: when the installed app is chosen to open a .prof (manifest `file_handlers`),
// the browser hands the files to `window.launchQueue`. Chromium only; elsewhere this is a no-op.

interface FileSystemFileHandleLike {
  kind: 'file' | 'directory';
  getFile(): Promise<File>;
}

interface LaunchParamsLike {
  files: readonly FileSystemFileHandleLike[];
}

interface LaunchQueueLike {
  setConsumer(consumer: (params: LaunchParamsLike) => void): void;
}

/** Opens the first file the app was launched with (and any later launch into this window). */
export function installLaunchQueue(open: (file: File) => void): void {
  const queue = (globalThis as { launchQueue?: LaunchQueueLike }).launchQueue;
  if (!queue || typeof queue.setConsumer !== 'function') return;
  queue.setConsumer((params) => {
    const handle = params.files.find((f) => f.kind === 'file');
    if (!handle) return;
    handle.getFile().then(open, (e: unknown) => {
      console.warn('Flamelens: could not read the launched file', e);
    });
  });
}
