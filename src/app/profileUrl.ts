// `#profileURL=<url-encoded URL>`: open a profile hosted elsewhere (CI artifacts, a bucket).
// The fetch goes straight from the browser to that server, which must allow CORS. http(s) only,
// and no more than MAX_DOWNLOAD bytes.

import { INFLATE_LIMITS } from '../core/formats/inflate';

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

/** The most a download may bring: what the core inflates a file to at most (formats/inflate.ts). */
export const MAX_DOWNLOAD = INFLATE_LIMITS.maxOutput;

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
  maxBytes = MAX_DOWNLOAD,
): Promise<{ name: string; data: ArrayBuffer }> {
  let scheme = '';
  try {
    scheme = new URL(url, globalThis.location?.href ?? 'http://localhost/').protocol;
  } catch {
    throw new ProfileFetchError('could not fetch URL: it is not a URL');
  }
  if (scheme !== 'https:' && scheme !== 'http:')
    throw new ProfileFetchError(
      `could not fetch URL: only http: and https: links are fetched, not ${scheme}`,
    );
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
  const tooBig = () =>
    new ProfileFetchError(
      `could not fetch URL: the file is larger than ${Math.round(maxBytes / 2 ** 20)} MiB, the most a page can hold`,
    );
  if (expected > maxBytes && res.headers.get('Content-Encoding') === null) {
    await res.body?.cancel();
    throw tooBig();
  }
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
        // An endless (or huge) download is stopped at the cap, not buffered until the tab dies.
        if (received > maxBytes) {
          await reader.cancel();
          throw tooBig();
        }
        // A gzip-encoded response's Content-Length counts compressed bytes: cap the fraction.
        if (expected > 0) onProgress?.(Math.min(1, received / expected));
      }
    } else {
      const whole = new Uint8Array(await res.arrayBuffer());
      chunks.push(whole);
      received = whole.byteLength;
    }
  } catch (e) {
    if (signal?.aborted || e instanceof ProfileFetchError) throw e;
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
  return { name: profileNameFromUrl(res.url || url), data: out.buffer };
}
