// `#profileURL=<url-encoded URL>`: open a profile hosted elsewhere (CI artifacts, a bucket).
// The fetch goes straight from the browser to that server, which must allow CORS.

/** The profile URL of a location hash (`#profileURL=…`, among other `&`-separated params), or null. */
export function readProfileUrlFromHash(hash: string): string | null {
  const body = hash.startsWith('#') ? hash.slice(1) : hash;
  for (const part of body.split('&')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq) !== 'profileURL') continue;
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1).replace(/\+/g, '%20'));
    } catch {
      return null; // malformed percent-encoding
    }
    value = value.trim();
    return value === '' ? null : value;
  }
  return null;
}

/** A file name for a fetched profile: the last path segment, else the host. */
export function profileNameFromUrl(url: string): string {
  try {
    const u = new URL(url, 'http://localhost/');
    const segs = u.pathname.split('/').filter((s) => s !== '');
    const last = segs.length > 0 ? segs[segs.length - 1] : '';
    if (last) {
      try {
        return decodeURIComponent(last);
      } catch {
        return last;
      }
    }
    return u.host || 'profile';
  } catch {
    return 'profile';
  }
}

export class ProfileFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProfileFetchError';
  }
}

/**
 * Downloads a profile, reporting progress as a fraction (when the server sends Content-Length;
 * otherwise once at the end). Rejects with a ProfileFetchError whose message a user understands.
 * An abort rejects with the signal's AbortError untouched.
 */
export async function fetchProfile(
  url: string,
  onProgress?: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<{ name: string; buffer: ArrayBuffer }> {
  let res: Response;
  try {
    // No credentials: a profile URL should not carry the user's cookies to another site.
    res = await fetch(url, { signal, credentials: 'omit', mode: 'cors' });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ProfileFetchError(
      'could not fetch URL: the server did not answer or does not allow cross-origin requests (CORS)',
    );
  }
  if (!res.ok) {
    throw new ProfileFetchError(
      `could not fetch URL: HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`,
    );
  }
  const length = Number(res.headers.get('Content-Length') ?? '');
  const expected = Number.isFinite(length) && length > 0 ? length : 0;
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        received += value.byteLength;
        // A gzip-encoded response's Content-Length counts compressed bytes: cap the fraction.
        if (expected > 0) onProgress?.(Math.min(1, received / expected));
      }
    } else {
      const whole = new Uint8Array(await res.arrayBuffer());
      chunks.push(whole);
      received = whole.byteLength;
    }
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ProfileFetchError(`could not fetch URL: the download broke off after ${received} bytes`);
  }
  if (received === 0) throw new ProfileFetchError('could not fetch URL: the server sent an empty file');
  onProgress?.(1);
  const out = new Uint8Array(received);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return { name: profileNameFromUrl(res.url || url), buffer: out.buffer };
}

export interface ProfileUrlHandlers {
  /** Download progress, 0..1 (only when the server sends Content-Length). */
  onProgress?: (fraction: number, name: string) => void;
  onLoaded: (file: { name: string; buffer: ArrayBuffer }) => void;
  /** `name` is the file name taken from the URL; `message` starts with "could not fetch URL". */
  onError: (name: string, message: string) => void;
}

/**
 * Opens the profile a location hash names (`#profileURL=…`), if any. Returns a cancel function
 * (for a React effect's cleanup): a cancelled download reports nothing.
 */
export function loadProfileFromHash(hash: string, h: ProfileUrlHandlers): () => void {
  const url = readProfileUrlFromHash(hash);
  if (url === null) return () => {};
  const name = profileNameFromUrl(url);
  const ac = new AbortController();
  h.onProgress?.(0, name);
  fetchProfile(url, (f) => h.onProgress?.(f, name), ac.signal).then(
    (file) => {
      if (!ac.signal.aborted) h.onLoaded(file);
    },
    (e: unknown) => {
      if (!ac.signal.aborted) h.onError(name, e instanceof Error ? e.message : String(e));
    },
  );
  return () => ac.abort();
}
