// A local model's identity for judge ids: its name (the GGUF's `general.name`, else the file name) and a short
// hash of its content, never its path (which must not reach a public page).
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';

/** How much of a file the hash reads: its size, the first and last 8 MiB and 32 evenly spaced 256 KiB samples. */
const EDGE = 8 << 20;
const SAMPLES = 32;
const SAMPLE = 256 << 10;
const cache = new Map<string, { name: string; hash: string; key: string }>();

/** `{ name, hash }` of a model (or adapter) file: SHA-256 over samples, since two fine-tunes differ in every one. */
export function modelIdentity(path: string): { name: string; hash: string } {
  const fd = openSync(path, 'r');
  try {
    const st = fstatSync(fd);
    const key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    const hit = cache.get(path);
    if (hit?.key === key) return { name: hit.name, hash: hit.hash };
    const h = createHash('sha256').update(`${st.size}\n`);
    const read = (pos: number, len: number) => {
      const b = Buffer.alloc(Math.max(0, Math.min(len, st.size - pos)));
      const n = readSync(fd, b, 0, b.length, pos);
      return b.subarray(0, n);
    };
    if (st.size <= 2 * EDGE) h.update(read(0, st.size));
    else {
      h.update(read(0, EDGE));
      const span = st.size - 2 * EDGE - SAMPLE;
      for (let i = 0; i < SAMPLES; i++) h.update(read(EDGE + Math.floor((span * i) / (SAMPLES - 1)), SAMPLE));
      h.update(read(st.size - EDGE, EDGE));
    }
    const head = read(0, 1 << 20);
    const name = safeName(ggufName(head) ?? basename(path).replace(/\.(gguf|bin|safetensors)$/i, ''));
    const out = { name, hash: h.digest('hex').slice(0, 10) };
    cache.set(path, { ...out, key });
    return out;
  } finally {
    closeSync(fd);
  }
}

/** A name safe in ids, URLs and file names: letters, digits and . _ - only. */
function safeName(s: string): string {
  return (
    s
      .trim()
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[-.]+|-+$/g, '')
      .slice(0, 80) || 'model'
  );
}

/** `general.name` from a GGUF header (v2/v3, little-endian), or undefined (not a GGUF, or not in `head`). */
export function ggufName(head: Buffer): string | undefined {
  if (head.length < 24 || head.toString('latin1', 0, 4) !== 'GGUF') return undefined;
  const version = head.readUInt32LE(4);
  if (version < 2) return undefined;
  let off = 24;
  const kvs = Number(head.readBigUInt64LE(16));
  const str = () => {
    const n = Number(head.readBigUInt64LE(off));
    off += 8;
    const s = head.toString('utf8', off, off + n);
    off += n;
    return s;
  };
  // bytes of each fixed-size value type; 8 (string) and 9 (array) are read
  const sizes = [1, 1, 2, 2, 4, 4, 4, 1, undefined, undefined, 8, 8, 8];
  const skip = (type: number): void => {
    if (type === 8) void str();
    else if (type === 9) {
      const t = head.readUInt32LE(off);
      const n = Number(head.readBigUInt64LE(off + 4));
      off += 12;
      if (sizes[t] !== undefined) off += sizes[t]! * n;
      else for (let i = 0; i < n; i++) skip(t);
    } else if (sizes[type] !== undefined) off += sizes[type]!;
    else throw new RangeError(`unknown GGUF type ${type}`);
  };
  try {
    for (let i = 0; i < kvs; i++) {
      const key = str();
      const type = head.readUInt32LE(off);
      off += 4;
      if (key === 'general.name' && type === 8) return str() || undefined;
      skip(type);
      if (off > head.length) return undefined;
    }
  } catch {
    return undefined; // the header runs past what was read, or is malformed: fall back to the file name
  }
  return undefined;
}
