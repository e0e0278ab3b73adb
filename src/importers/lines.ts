// Stream the lines of a plain or gzip-compressed text file (gzip is recognised by its magic bytes),
// so a large judgment file is never held as one string. Errors name the file and the line.
import { createReadStream, readFileSync, statSync, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { ArenaError } from '../core/types.ts';

interface Line {
  /** 1-based */
  line: number;
  text: string;
}

const cannotRead = (path: string, e: unknown) =>
  new ArenaError(
    `${path}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    { file: path },
    { cause: e },
  );

/** Only regular files are read: a FIFO waits for a writer that may never come, and a device never ends. */
function refuseIrregular(path: string, st: Stats): void {
  if (st.isFile()) return;
  if (st.isDirectory())
    throw new ArenaError(`${path}: a directory, not a file (name the .jsonl file inside it)`, { file: path });
  const kind = st.isFIFO()
    ? 'a FIFO'
    : st.isSocket()
      ? 'a socket'
      : st.isCharacterDevice() || st.isBlockDevice()
        ? 'a device'
        : 'not a file';
  throw new ArenaError(`${path}: not a regular file (${kind}); only regular files are read`, { file: path });
}

async function isGzip(path: string): Promise<boolean> {
  let fh;
  try {
    refuseIrregular(path, await stat(path));
    fh = await open(path, 'r');
  } catch (e) {
    if (e instanceof ArenaError) throw e;
    throw cannotRead(path, e);
  }
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await fh.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/** Bounds on what one import file may expand to; ImportLimits' fields override them (tests use small ones). */
export const IMPORT_LIMITS = {
  /** the longest line, in bytes (a judgment or answer line is kilobytes; a few MB is already unusual) */
  maxLineBytes: 64 << 20,
  /** the most a gzip file may decompress to */
  maxDecompressedBytes: 4 * 1024 ** 3,
  /** decompressed over compressed bytes, checked once more than ratioFromBytes have come out (text is ~3-10:1) */
  maxRatio: 100,
  ratioFromBytes: 16 << 20,
};
export type ImportLimits = typeof IMPORT_LIMITS;

/** 1.5 MiB, 611 KB, 12 B: a size for messages */
function sizeText(bytes: number): string {
  if (bytes >= 1 << 20) return `${+(bytes / (1 << 20)).toFixed(1)} MiB`;
  if (bytes >= 1000) return `${+(bytes / 1000).toFixed(0)} KB`;
  return `${bytes} B`;
}

/**
 * The non-blank lines of `path` (CRLF or LF) as strict UTF-8; a broken gzip stream is reported at its line.
 * Bounded: a too long line and gzip that expands too far are located errors (nothing held beyond one line).
 */
async function* readLines(path: string, limits: Partial<ImportLimits> = {}): AsyncGenerator<Line> {
  const lim = { ...IMPORT_LIMITS, ...limits };
  const gz = await isGzip(path);
  if (!gz && /\.gz$/i.test(path))
    throw new ArenaError(
      `${path}: not a gzip file (the name ends in .gz but the bytes do not start with gzip's magic number)`,
      { file: path },
    );
  const file = createReadStream(path);
  const stream = gz ? file.pipe(createGunzip()) : file;
  file.on('error', (e) => stream.destroy(e));
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let read = 0;
  /** what was read before a bound stopped it */
  const sofar = () =>
    `${line - 1} complete line(s), ${sizeText(read)}${gz ? ` from ${sizeText(file.bytesRead)} of gzip` : ''} read`;
  const tooLong = () =>
    new ArenaError(
      `${path}:${line}: line is longer than ${sizeText(lim.maxLineBytes)} (the import limit for one line); ${sofar()}`,
      { file: path, line },
    );
  const emit = (bytes: Buffer): Line | undefined => {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw new ArenaError(`${path}:${line}: invalid UTF-8`, { file: path, line });
    }
    const out = text.replace(/\r$/, '');
    return out.trim() ? { line, text: out } : undefined;
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (gz) {
        if (read > lim.maxDecompressedBytes)
          throw new ArenaError(
            `${path}:${line}: the gzip data decompresses to more than ${sizeText(lim.maxDecompressedBytes)} (the import limit); ${sofar()}`,
            { file: path, line },
          );
        if (read > lim.ratioFromBytes && read > lim.maxRatio * file.bytesRead)
          throw new ArenaError(
            `${path}:${line}: the gzip data expands more than ${lim.maxRatio}:1 (${sizeText(read)} from ${sizeText(file.bytesRead)}), like a decompression bomb; ${sofar()}. If the file is genuine, decompress it and import the plain file`,
            { file: path, line },
          );
      }
      let start = 0;
      for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, start)) {
        if (pendingBytes === 0 && (i === start || (i === start + 1 && chunk[start] === 0x0d))) {
          // a blank line: nothing to decode (a file of newlines costs one scan, not a decode per line)
          line++;
          start = i + 1;
          continue;
        }
        if (pendingBytes + i - start > lim.maxLineBytes) throw tooLong();
        pending.push(chunk.subarray(start, i));
        const l = emit(pending.length === 1 ? pending[0]! : Buffer.concat(pending));
        pending = [];
        pendingBytes = 0;
        if (l) yield l;
        line++;
        start = i + 1;
      }
      if (start < chunk.length) {
        pendingBytes += chunk.length - start;
        if (pendingBytes > lim.maxLineBytes) throw tooLong();
        pending.push(chunk.subarray(start));
      }
    }
  } catch (e) {
    if (e instanceof ArenaError) throw e;
    const err = e as NodeJS.ErrnoException;
    if (
      gz &&
      (err.code?.startsWith('Z_') || /unexpected end of file|incorrect header|invalid/i.test(err.message))
    ) {
      throw new ArenaError(
        `${path}:${line}: the gzip data is truncated or corrupt (${err.message}); ${line - 1} complete line(s) before it`,
        { file: path, line },
        { cause: e },
      );
    }
    throw new ArenaError(
      `${path}: cannot read the file (${err.code ?? err.message})`,
      { file: path },
      { cause: e },
    );
  } finally {
    file.destroy();
    if (stream !== file) stream.destroy();
  }
  if (pending.length) {
    const l = emit(Buffer.concat(pending));
    if (l) yield l;
  }
}

/** JSON Lines, streamed: one parsed value per non-blank line; a malformed line is a located error. */
export async function* readJsonl(
  path: string,
  limits: Partial<ImportLimits> = {},
): AsyncGenerator<{ line: number; value: unknown }> {
  for await (const { line, text } of readLines(path, limits)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new ArenaError(`${path}:${line}: malformed JSON (${(e as Error).message})`, { file: path, line });
    }
    yield { line, value };
  }
}

/** Every value of a JSON Lines file (plain or gzip), read as it streams: the file's text is never held whole. */
export async function readJsonlFile(
  path: string,
  limits: Partial<ImportLimits> = {},
): Promise<{ line: number; value: unknown }[]> {
  const out: { line: number; value: unknown }[] = [];
  for await (const v of readJsonl(path, limits)) out.push(v);
  return out;
}

/** A file's bytes, or an ArenaError naming the file and why it cannot be read. */
export function readImportFile(path: string): Uint8Array {
  regularFile(path);
  try {
    return readFileSync(path);
  } catch (e) {
    throw cannotRead(path, e);
  }
}

/** An ArenaError naming the file unless `path` is a regular file (a symlink is followed); the file is not opened. */
export function regularFile(path: string): void {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    throw cannotRead(path, e);
  }
  refuseIrregular(path, st);
}
