// "Add a folder…": a directory input (every Chromium and Firefox has `webkitdirectory`); the
// browser lists the folder's files without reading them, and the worker reads only the few that
// symbolize the open profile.

import { useId } from 'react';
import { filesOfDirectoryInput } from './folders';
import { openFiles } from './jobs';

export function FolderPicker({
  label = 'Add a folder of binaries',
  text = 'Add a folder…',
  small = true,
}: {
  label?: string;
  text?: string;
  small?: boolean;
}) {
  const id = useId();
  return (
    <>
      <label htmlFor={id} className={small ? 'file-label small' : 'file-label'}>
        {text}
      </label>
      <input
        id={id}
        className="file-input"
        type="file"
        aria-label={label}
        // React passes unknown lowercase attributes through; `webkitdirectory` makes it pick folders.
        {...{ webkitdirectory: '' }}
        onChange={(e) => {
          const files = Array.from(e.currentTarget.files ?? []);
          if (files.length > 0) void openFiles([], filesOfDirectoryInput(files));
          e.currentTarget.value = '';
        }}
      />
    </>
  );
}
