// The "Judge Llama 2" study's judgment file (upstage/Llama-2-70b-instruct-v2 judging MT-Bench's 2,400
// matches), pinned like the release: from $JUDGE_LLAMA2_DIR when given, else downloaded and checked.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';
import { ArenaError } from '../core/types.ts';
import { fetchWithRetry } from './download.ts';

/** The file inside a judge_llama2 directory (../shared/judge_llama2 layout). */
export const STUDY_JUDGMENTS = 'model_judgment/L40-Llama-2-70b-instruct-v2.jsonl.gz';

/**
 * Pins: the study's FastChat fork (geronimi73/FastChat @ dc8b7e6) holds the JSONL in a zip; the content is
 * pinned by size and SHA-256 whatever the container, and so is the gzip of ../shared/judge_llama2.
 */
export const STUDY_PIN = {
  url: 'https://raw.githubusercontent.com/geronimi73/FastChat/dc8b7e6dcc64b85dac15f3482736929a3c494c07/fastchat/llm_judge/data/mt_bench/model_judgment/L40-Llama-2-70b-instruct-v2.jsonl.zip',
  jsonl: { size: 45_873_189, sha256: '0ca057c17d287d72cfabc7356c63c15a558b0a6719d35f93b4c101ccbb3086c3' },
  gzip: { size: 1_808_327, sha256: 'ac18c7343a06b8fd0d07cb9b57fe29ca2d299d8e8df7917ee35d947192900e2f' },
} as const;

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The one file of a zip archive (stored or deflated), found through the central directory. */
function unzipSingle(zip: Buffer, where: string): Buffer {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new ArenaError(`${where}: not a zip archive (no end-of-central-directory record)`);
  const cd = zip.readUInt32LE(eocd + 16);
  if (zip.readUInt32LE(cd) !== 0x02014b50)
    throw new ArenaError(`${where}: corrupt zip archive (bad central directory)`);
  const method = zip.readUInt16LE(cd + 10);
  const compressed = zip.readUInt32LE(cd + 20);
  const local = zip.readUInt32LE(cd + 42);
  if (zip.readUInt32LE(local) !== 0x04034b50)
    throw new ArenaError(`${where}: corrupt zip archive (bad local header)`);
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const data = zip.subarray(start, start + compressed);
  if (method === 0) return Buffer.from(data);
  if (method === 8) return inflateRawSync(data);
  throw new ArenaError(
    `${where}: zip compression method ${method} is not supported (stored or deflate only)`,
  );
}

/** Check downloaded bytes and return the gzip bytes to keep (`gzipBytes: false`: the content alone). */
function verifiedStudyGzip(bytes: Buffer, where: string, o: { gzipBytes?: boolean } = {}): Buffer {
  const isGzip = bytes[0] === 0x1f && bytes[1] === 0x8b;
  if (
    isGzip &&
    o.gzipBytes !== false &&
    (bytes.length !== STUDY_PIN.gzip.size || sha256(bytes) !== STUDY_PIN.gzip.sha256)
  )
    throw new ArenaError(
      `${where}: content does not match the pinned file: gzip of ${bytes.length} bytes, sha256 ${sha256(bytes)} (expected ${STUDY_PIN.gzip.size} bytes, ${STUDY_PIN.gzip.sha256}); nothing was imported`,
    );
  let jsonl: Buffer;
  try {
    jsonl = isGzip
      ? gunzipSync(bytes)
      : bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))
        ? unzipSingle(bytes, where)
        : bytes;
  } catch (e) {
    if (e instanceof ArenaError) throw e;
    throw new ArenaError(
      `${where}: cannot decompress (${(e as Error).message}); nothing was imported`,
      undefined,
      { cause: e },
    );
  }
  if (jsonl.length !== STUDY_PIN.jsonl.size || sha256(jsonl) !== STUDY_PIN.jsonl.sha256)
    throw new ArenaError(
      `${where}: content does not match the pinned file: ${jsonl.length} bytes of JSONL, sha256 ${sha256(jsonl)} (expected ${STUDY_PIN.jsonl.size} bytes, ${STUDY_PIN.jsonl.sha256}); nothing was imported`,
    );
  return isGzip ? bytes : gzipSync(jsonl, { level: 9 });
}

/** The cache folder of the study's judgments, named for the pinned commit. */
export const STUDY_CACHE = 'judge_llama2-dc8b7e6';

/** Download the study's judgments into a cache directory (a file matching the pin is kept); returns the file. */
export async function downloadStudyJudgments(o: {
  url?: string;
  cacheDir: string;
  retries?: number;
  log?(m: string): void;
}): Promise<string> {
  const dir = o.cacheDir;
  const target = join(dir, STUDY_JUDGMENTS);
  if (existsSync(target)) {
    try {
      verifiedStudyGzip(readFileSync(target), target, { gzipBytes: false });
      return target;
    } catch {
      o.log?.(`${target}: cached copy does not match the pin; downloading again`);
    }
  }
  const url = o.url ?? STUDY_PIN.url;
  o.log?.(`downloading ${url}`);
  const gz = verifiedStudyGzip(Buffer.from(await fetchWithRetry(url, o.retries ?? 3, o.log)), url);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(`${target}.part`, gz);
  renameSync(`${target}.part`, target);
  return target;
}
