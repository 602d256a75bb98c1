import { afterEach, describe, expect, it, vi } from 'vitest';
import { fetchProfile, ProfileFetchError, profileNameFromUrl } from './profileUrl';

describe('profileNameFromUrl', () => {
  it('is the last path segment, decoded, else the host', () => {
    expect(profileNameFromUrl('https://h/a/b/out%20x.prof?sig=1')).toBe('out x.prof');
    expect(profileNameFromUrl('https://h.example/')).toBe('h.example');
    expect(profileNameFromUrl('fixtures/tiny.prof')).toBe('tiny.prof');
  });
});

describe('fetchProfile', () => {
  afterEach(() => vi.unstubAllGlobals());

  const streamOf = (chunks: Uint8Array[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(ch);
        c.close();
      },
    });

  it('streams the body and reports progress from Content-Length', async () => {
    const body = streamOf([new Uint8Array([1, 2, 3]), new Uint8Array([4, 5, 6, 7])]);
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(body, { status: 200, headers: { 'Content-Length': '7' } })),
    );
    const seen: number[] = [];
    const r = await fetchProfile('https://h/x/p.prof', (f) => seen.push(f));
    expect(r.name).toBe('p.prof');
    expect([...new Uint8Array(r.data)]).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(seen[0]).toBeCloseTo(3 / 7);
    expect(seen[seen.length - 1]).toBe(1);
  });

  it('explains network and CORS failures', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    const p = fetchProfile('https://elsewhere/p.prof');
    await expect(p).rejects.toBeInstanceOf(ProfileFetchError);
    await expect(p).rejects.toThrow(
      'could not fetch URL: the server did not answer or does not allow cross-origin requests (CORS)',
    );
  });

  it('names the HTTP status', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('nope', { status: 404 })),
    );
    await expect(fetchProfile('https://h/p.prof')).rejects.toThrow(/^could not fetch URL: HTTP 404/);
  });

  it('rejects an empty body', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(new Uint8Array(0), { status: 200 })),
    );
    await expect(fetchProfile('https://h/p.prof')).rejects.toThrow(
      'could not fetch URL: the server sent an empty file',
    );
  });

  it('passes an abort through untouched', async () => {
    const ac = new AbortController();
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_u: string, init: RequestInit) => {
        ac.abort();
        init.signal?.throwIfAborted();
        return new Response('x');
      }),
    );
    await expect(fetchProfile('https://h/p.prof', undefined, ac.signal)).rejects.toMatchObject({
      name: 'AbortError',
    });
  });
});

describe('fetchProfile from strangers', () => {
  it('fetches http(s) only, saying so', async () => {
    for (const url of ['javascript:alert(1)', 'data:text/plain,x', 'file:///etc/passwd'])
      await expect(fetchProfile(url)).rejects.toThrow(/only http: and https: links are fetched, not [a-z]+:/);
  });

  it('stops an endless download at the cap, saying the limit', async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        sent += 1 << 16;
        c.enqueue(new Uint8Array(1 << 16));
      },
    });
    const real = globalThis.fetch;
    globalThis.fetch = async () => new Response(body, { status: 200 });
    try {
      await expect(
        fetchProfile('https://example.test/endless', undefined, undefined, 1 << 20),
      ).rejects.toThrow('could not fetch URL: the file is larger than 1 MiB, the most a page can hold');
      expect(sent).toBeLessThan(2 << 20);
    } finally {
      globalThis.fetch = real;
    }
  });
});
