// Memory freed at once, not at the next garbage collection.

/**
 * Frees the memory of a buffer the caller owns now rather than at the next garbage collection (a
 * worker busy folding may not collect for seconds: a 400 MB file's bytes stayed to the end of its
 * open): it is transferred into a message on a channel that is closed at once, which drops it.
 * Only a buffer the bytes fill (a view into a larger one, as a bundle's member, is left alone).
 */
export function release(bytes: Uint8Array): void {
  const buffer = bytes.buffer;
  if (!(buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== buffer.byteLength)
    return;
  if (typeof MessageChannel !== 'function' || bytes.byteLength < 1 << 20) return;
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(null, [buffer]);
  port1.close();
  port2.close();
}
