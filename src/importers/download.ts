import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ArenaError } from '../core/types.ts';

/**
 * The public MT-Bench release, pinned: every file at a fixed commit, checked against its git blob hash after
 * download. FastChat (Apache-2.0); the six models' answers as LMSYS published them; the HF dataset
 * lmsys/mt_bench_human_judgments (CC BY 4.0).
 */
export interface ReleaseFile {
  /** path inside the release directory (FastChat's data/mt_bench layout) */
  path: string;
  url: string;
  /** git blob SHA-1 (`git hash-object`) */
  blob: string;
  /** its size in bytes: a download stops as soon as a server sends more (a mirror cannot make us hold more than this) */
  size?: number;
}

const FASTCHAT =
  'https://raw.githubusercontent.com/lm-sys/FastChat/0e6d3e4beaab66f4d3f93db72541a4abab8af28d/fastchat/llm_judge/data';
const ANSWERS =
  'https://raw.githubusercontent.com/geronimi73/FastChat/945194bb18cbbc2ef3630fc30087114da32085f0/fastchat/llm_judge/data/mt_bench/model_answer';
const HUMAN =
  'https://raw.githubusercontent.com/mokayahezron/evalaudit/9011cf59598a2fccc4023e40d30f089219238f4f/tests/data';

const MT = `${FASTCHAT}/mt_bench`;
const REF = `${MT}/reference_answer`;

/** Each file as [path, the folder of its pinned URL, git blob, size]. */
const PINS: [string, string, string, number][] = [
  ['question.jsonl', MT, '464e2c22f7a021a0f9a584d232338a9a17c40066', 48929],
  ['reference_answer/gpt-4.jsonl', REF, '8b66387a3129cbb117178fe515491df553dd52df', 51109],
  ['judge_prompts.jsonl', FASTCHAT, '4ec7524cbcdf308766fddc52df31e203316ad75f', 10449],
  ['model_answer/alpaca-13b.jsonl', ANSWERS, 'c13f9b8b717691e9722d675a2c020a9253611b16', 66179],
  ['model_answer/claude-v1.jsonl', ANSWERS, '6040295dc04cc3ad289eebe23715a2b03bde39e2', 174683],
  ['model_answer/gpt-3.5-turbo.jsonl', ANSWERS, 'a7e20781f3c3282982aa70b5dd09303c3042b33f', 158274],
  ['model_answer/gpt-4.jsonl', ANSWERS, 'fb23458eb1840792b9e43c9b47c1601fb6c0adc5', 199046],
  ['model_answer/llama-13b.jsonl', ANSWERS, 'c79041cb8e8285e345d04c313cb61ad655e69f7b', 130031],
  ['model_answer/vicuna-13b-v1.2.jsonl', ANSWERS, 'f2defcca07b788482999e1ed10d90512894902e3', 191402],
  ['human_judgments/mt_bench_human.csv', HUMAN, '3301c35751072b5677e205748dc15e1f9bc58acc', 151933],
  ['human_judgments/mt_bench_gpt4_pair.csv', HUMAN, '09bf593cb3eca5d51924d096362401d32ec0b730', 113976],
];

export const MTBENCH_RELEASE: ReleaseFile[] = PINS.map(([path, dir, blob, size]) => ({
  path,
  url: `${dir}/${basename(path)}`,
  blob,
  size,
}));

export function gitBlobSha1(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** The cache folder of the pinned release, named for its FastChat commit. */
export const MTBENCH_CACHE = 'mt_bench-0e6d3e4';

export interface DownloadOptions {
  /** fetch every file as `${baseUrl}/${path}` (a mirror in the same layout) instead of its pinned URL */
  baseUrl?: string;
  /** per-file URLs (release path -> URL), e.g. from `loadManifest`; they win over baseUrl. Hashes stay pinned. */
  urls?: Record<string, string>;
  /** files to fetch (default: MTBENCH_RELEASE) */
  files?: ReleaseFile[];
  /** where the files are kept (the CLI's default: cacheDir(MTBENCH_CACHE), src/cli/cache-dir.ts) */
  cacheDir: string;
  /** check the git blob hashes (default true) */
  verify?: boolean;
  retries?: number;
  log?(message: string): void;
}

/** Download the release into a cache directory (good files kept, each written under a temporary name first). */
export async function downloadMtbench(o: DownloadOptions): Promise<string> {
  const files = o.files ?? MTBENCH_RELEASE;
  const dir = o.cacheDir;
  const verify = o.verify ?? true;
  for (const f of files) {
    const target = join(dir, f.path);
    if (existsSync(target) && (!verify || gitBlobSha1(readFileSync(target)) === f.blob)) continue;
    const url = o.urls?.[f.path] ?? (o.baseUrl ? `${o.baseUrl.replace(/\/+$/, '')}/${f.path}` : f.url);
    o.log?.(`downloading ${url}`);
    const bytes = await fetchWithRetry(url, o.retries ?? 3, o.log, verify ? f.size : undefined).catch((e) => {
      if (!(e instanceof OverSize)) throw e;
      throw new ArenaError(
        `${f.path} (from ${url}): content does not match the pinned release: size/hash mismatch (the server sent ${e.sent} bytes, the pinned file has ${f.size}; git blob expected ${f.blob}); download stopped, nothing was imported`,
        { file: f.path },
      );
    });
    if (verify) {
      const got = gitBlobSha1(bytes);
      if (got !== f.blob)
        throw new ArenaError(
          `${f.path} (from ${url}): content does not match the pinned release: hash mismatch (git blob ${got}, expected ${f.blob}); nothing was imported`,
          { file: f.path },
        );
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(`${target}.part`, bytes);
    renameSync(`${target}.part`, target);
  }
  return dir;
}

/**
 * A manifest file mapping release paths to URLs, for mirrors without the release layout (e.g. `{"question.jsonl":
 * "https://mirror.example/q.jsonl"}`); every file is still checked against its pinned hash.
 */
export function loadManifest(file: string, files: ReleaseFile[] = MTBENCH_RELEASE): Record<string, string> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ArenaError(
      `${file}: cannot read the manifest (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      { file },
      { cause: e },
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new ArenaError(`${file}: the manifest must be a JSON object mapping release paths to URLs`, {
      file,
    });
  const known = new Set(files.map((f) => f.path));
  const urls: Record<string, string> = {};
  for (const [path, url] of Object.entries(data)) {
    if (!known.has(path))
      throw new ArenaError(
        `${file}: field "${path}": not a file of the release (known: ${[...known].join(', ')})`,
        { file, field: path },
      );
    if (typeof url !== 'string' || !/^https?:\/\//.test(url))
      throw new ArenaError(`${file}: field "${path}": expected an http(s) URL, got ${JSON.stringify(url)}`, {
        file,
        field: path,
      });
    urls[path] = url;
  }
  return urls;
}

export async function fetchWithRetry(
  url: string,
  retries: number,
  log?: (m: string) => void,
  maxBytes?: number,
): Promise<Uint8Array> {
  const wait = async (attempt: number, why: string) => {
    const ms = 500 * 2 ** attempt;
    log?.(`${url}: ${why}; retry ${attempt + 1}/${retries} in ${(ms / 1000).toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, ms));
  };
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
    } catch (e) {
      const why = (e as Error & { cause?: Error }).cause?.message ?? (e as Error).message;
      if (attempt < retries) {
        await wait(attempt, why);
        continue;
      }
      throw new ArenaError(`${url}: download failed (${why})`, undefined, { cause: e });
    }
    if (res.ok)
      return maxBytes === undefined ? new Uint8Array(await res.arrayBuffer()) : readAtMost(res, maxBytes);
    if ((res.status === 429 || res.status >= 500) && attempt < retries) {
      await res.body?.cancel();
      await wait(attempt, `HTTP ${res.status}`);
      continue;
    }
    throw new ArenaError(
      `${url}: download failed with HTTP ${res.status}${res.status === 404 ? ' (not found)' : ''}${attempt ? ` after ${attempt + 1} attempts` : ''}`,
    );
  }
}

/** A body longer than the pinned size (how much was sent, as far as it was read). */
class OverSize extends Error {
  constructor(readonly sent: string) {
    super(`over the pinned size: ${sent} bytes`);
  }
}

/** The body, read as it arrives and given up as soon as it passes `max` bytes (the pinned file's size). */
async function readAtMost(res: Response, max: number): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > max) {
    await res.body?.cancel();
    throw new OverSize(String(declared));
  }
  const chunks: Uint8Array[] = [];
  let n = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > max) {
      await reader.cancel();
      throw new OverSize(`over ${n}`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
