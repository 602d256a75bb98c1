// A labelled file input, opened like a drop: files (a profile and/or binaries), a profile to
// compare with, or a folder (every Chromium and Firefox has `webkitdirectory`: the browser lists
// the folder's files without reading them, and the worker reads only the few it needs).

import { useId } from 'react';
import { filesOfDirectoryInput } from './folders';
import { compareFiles, openFiles } from './open';

/**
 * A labelled, multi-file input: opens a profile and/or binaries, like a drop; or (`compare`) a
 * profile to compare the open one with; or (`folder`) a folder holding a profile or its binaries.
 */
export function FilePicker({
  label,
  text,
  small,
  compare,
  folder,
}: {
  label: string;
  text: string;
  small?: boolean;
  compare?: boolean;
  folder?: boolean;
}) {
  const id = useId();
  return (
    <>
      <input
        id={id}
        className="file-input"
        type="file"
        multiple={!folder}
        aria-label={label}
        // React passes unknown lowercase attributes through; `webkitdirectory` makes it pick folders.
        {...(folder ? { webkitdirectory: '' } : {})}
        onChange={(e) => {
          const files = Array.from(e.currentTarget.files ?? []);
          if (files.length > 0)
            void (folder
              ? openFiles([], filesOfDirectoryInput(files))
              : compare
                ? compareFiles(files)
                : openFiles(files));
          e.currentTarget.value = '';
        }}
      />
      {/* After the input: its keyboard focus shows on the label (`.file-input:focus-visible + label`). */}
      <label htmlFor={id} className={small ? 'file-label small' : 'file-label'}>
        {text}
      </label>
    </>
  );
}
