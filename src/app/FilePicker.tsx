// A labelled, multi-file input: a profile and/or binaries, opened like a drop.

import { useId } from 'react';
import { compareFiles, openFiles } from './jobs';

/**
 * A labelled, multi-file input: opens a profile and/or binaries, like a drop; or (`compare`) a
 * profile to compare the open one with.
 */
export function FilePicker({
  label,
  text,
  small,
  compare,
}: {
  label: string;
  text: string;
  small?: boolean;
  compare?: boolean;
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
        multiple
        aria-label={label}
        onChange={(e) => {
          const files = Array.from(e.currentTarget.files ?? []);
          if (files.length > 0) void (compare ? compareFiles(files) : openFiles(files));
          e.currentTarget.value = '';
        }}
      />
    </>
  );
}
