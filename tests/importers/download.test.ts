// `arena import mtbench` without --dir: the pinned downloader against a local HTTP mirror of MTBENCH_DIR, named by
// --base-url or --manifest (nothing reaches the internet), with src/importers/download.ts's pinned hashes.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MTBENCH_RELEASE } from '../../src/importers/download.ts';
import { arenaJson, arenaOk, runArena, tmpDir } from '../support/cli.ts';
import { MTBENCH_DIR, noMtbench, skipWhy } from '../support/materials.ts';
import { mtbenchReleaseDb, mtbenchReleaseSummary } from '../support/mtbench-release.ts';

const DIR = MTBENCH_DIR;
skipWhy('download', noMtbench('the real MT-Bench release, for the mirror to serve'));

interface Mirror {
  url: string;
  /** every request path, in arrival order */
  requests: string[];
  /** path -> what to answer instead of the file: a status code per request (then the file), or other bytes */
  faults: Map<string, { statuses?: number[]; body?: Buffer }>;
  close(): Promise<void>;
}

/** A static file server over `root` on 127.0.0.1, with a request log and per-path faults. */
async function startMirror(root: string, prefix = '/release/'): Promise<Mirror> {
  const requests: string[] = [];
  const faults: Mirror['faults'] = new Map();
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    requests.push(path);
    if (!path.startsWith(prefix)) return void res.writeHead(404).end('not found');
    const rel = normalize(path.slice(prefix.length));
    const fault = faults.get(rel);
    const status = fault?.statuses?.shift();
    if (status !== undefined)
      return void res.writeHead(status, { 'content-type': 'text/plain' }).end(`status ${status}`);
    if (fault?.body) return void res.writeHead(200).end(fault.body);
    const file = join(root, rel);
    if (rel.startsWith('..') || !existsSync(file)) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    faults,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe.skipIf(!DIR)('arena import mtbench (download)', { timeout: 240_000 }, () => {
  let mirror: Mirror;
  let fromDir: string;
  let fromDirSummary: string;
  beforeAll(async () => {
    mirror = await startMirror(DIR!);
    // the release as `arena import mtbench --dir` stored it, imported once per run
    fromDir = await mtbenchReleaseDb(join(tmpDir(), 'dir.db'), DIR);
    fromDirSummary = await mtbenchReleaseSummary(DIR);
  }, 240_000);
  afterAll(() => mirror?.close());

  /** `arena import mtbench` from the mirror into `db`, with its own cache unless given one. */
  const fromMirror = (db: string, o: { cache?: string; manifest?: string } = {}) =>
    runArena([
      'import',
      'mtbench',
      '--base-url',
      mirror.url,
      ...(o.manifest ? ['--manifest', o.manifest] : []),
      '--cache',
      o.cache ?? tmpDir('arena-cache-'),
      '--db',
      db,
    ]);

  it('downloads every pinned file from the mirror, imports it like --dir, and a second run uses only the cache', async () => {
    const cache = tmpDir('arena-cache-');
    const db = join(tmpDir(), 'dl.db');
    mirror.requests.length = 0;
    const first = await fromMirror(db, { cache });
    expect(first.code, first.stderr).toBe(0);
    // one request per file of the pinned release, in the release layout
    expect([...mirror.requests].sort()).toEqual(MTBENCH_RELEASE.map((f) => `/release/${f.path}`).sort());
    for (const f of MTBENCH_RELEASE)
      expect(readFileSync(join(cache, f.path))).toEqual(readFileSync(join(DIR!, f.path)));
    expect(first.stdout.replace(/^imported into \S+/, '')).toBe(
      fromDirSummary.replace(/^imported into \S+/, ''),
    );
    expect(first.stdout).toMatch(/80 questions, 30 references, 480 answers, 8 prompts, 5755 votes/);

    for (const judge of ['gpt-4', 'human']) {
      const a = await arenaJson(['standings', '--judge', judge, '--db', db]);
      expect(a).toEqual(await arenaJson(['standings', '--judge', judge, '--db', fromDir]));
    }
    // FastChat's published pairwise-all row (mt-bench-protocol.md §9.2)
    const rows = await arenaJson<{ model: string; win: number; loss: number; tie: number }[]>([
      'standings',
      '--judge',
      'gpt-4',
      '--db',
      db,
    ]);
    expect(rows.find((r) => r.model === 'gpt-4')).toMatchObject({ win: 617, loss: 45, tie: 138 });

    // into the database the first run filled: what is at stake is where the files come from, and the import of
    // data already stored builds no report again (a fresh database costs a second import, ~4 s of CPU)
    mirror.requests.length = 0;
    const second = await fromMirror(db, { cache });
    expect(second.code, second.stderr).toBe(0);
    expect(mirror.requests).toEqual([]);
    expect(second.stderr).not.toMatch(/downloading/);
    expect(second.stdout).toMatch(/80 questions, 30 references, 480 answers, 8 prompts, 5755 votes/);
  });

  it('a mirror serving a modified file fails naming the file and the hash mismatch; the database is unchanged', async () => {
    const db = join(tmpDir(), 'kept.db');
    await arenaOk(['import', 'questions', join(DIR!, 'question.jsonl'), '--db', db]);
    const before = sha256(db);
    const original = readFileSync(join(DIR!, 'model_answer/gpt-4.jsonl'));
    mirror.faults.set('model_answer/gpt-4.jsonl', {
      body: Buffer.from(original.toString('utf8').replace('Hawaii', 'Hawai\u02bbi')),
    });
    try {
      const cache = tmpDir('arena-cache-');
      const r = await runArena(['import', 'mtbench', '--base-url', mirror.url, '--cache', cache, '--db', db]);
      expect(r.code).toBe(1);
      const msg = r.stderr.split('\n').find((l) => l.startsWith('arena: '));
      expect(msg).toMatch(/model_answer\/gpt-4\.jsonl/);
      expect(msg).toMatch(/hash mismatch/);
      expect(msg).toContain('expected fb23458eb1840792b9e43c9b47c1601fb6c0adc5');
      expect(r.stderr).not.toMatch(/^\s+at /m); // a clear message, not a stack trace
      expect(sha256(db)).toBe(before);
      expect(existsSync(`${db}-wal`) && readFileSync(`${db}-wal`).length > 0).toBe(false);
      // the bad bytes are not kept in the cache either
      expect(existsSync(join(cache, 'model_answer/gpt-4.jsonl'))).toBe(false);
      // and a run that has never seen the database does not create it
      const fresh = join(tmpDir(), 'never.db');
      expect(
        (await runArena(['import', 'mtbench', '--base-url', mirror.url, '--cache', cache, '--db', fresh]))
          .code,
      ).toBe(1);
      expect(existsSync(fresh)).toBe(false);
    } finally {
      mirror.faults.delete('model_answer/gpt-4.jsonl');
    }
  });

  it('500 responses are retried (and said so); the import then succeeds', async () => {
    mirror.faults.set('judge_prompts.jsonl', { statuses: [500, 503] });
    mirror.requests.length = 0;
    try {
      // over the release as --dir stored it: the retries are at stake, not a second full import
      const db = await mtbenchReleaseDb(join(tmpDir(), 'retry.db'), DIR);
      const r = await fromMirror(db);
      expect(r.code, r.stderr).toBe(0);
      expect(mirror.requests.filter((p) => p === '/release/judge_prompts.jsonl')).toHaveLength(3);
      expect(r.stderr).toMatch(/judge_prompts\.jsonl: HTTP 500; retry 1\//);
      expect(r.stderr).toMatch(/judge_prompts\.jsonl: HTTP 503; retry 2\//);
      expect(r.stdout).toMatch(/8 prompts/);
    } finally {
      mirror.faults.delete('judge_prompts.jsonl');
    }
  });

  it('a 404 is a clear error naming the URL, and is not retried', async () => {
    mirror.faults.set('reference_answer/gpt-4.jsonl', { statuses: [404] });
    mirror.requests.length = 0;
    try {
      const db = join(tmpDir(), 'nf.db');
      const r = await fromMirror(db);
      expect(r.code).toBe(1);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('arena: '));
      expect(lines).toEqual([
        `arena: ${mirror.url}reference_answer/gpt-4.jsonl: download failed with HTTP 404 (not found)`,
      ]);
      expect(mirror.requests.filter((p) => p.endsWith('reference_answer/gpt-4.jsonl'))).toHaveLength(1);
      expect(existsSync(db)).toBe(false);
    } finally {
      mirror.faults.delete('reference_answer/gpt-4.jsonl');
    }
  });

  it('--manifest overrides the URL of single files (hashes stay pinned); unknown paths in it are an error', async () => {
    // a second mirror in another layout, holding only the questions
    const other = await startMirror(DIR!, '/elsewhere/');
    try {
      const dir = tmpDir();
      const manifest = join(dir, 'manifest.json');
      writeFileSync(manifest, JSON.stringify({ 'question.jsonl': `${other.url}question.jsonl` }));
      mirror.requests.length = 0;
      const db = join(dir, 'm.db');
      const r = await fromMirror(db, { manifest });
      expect(r.code, r.stderr).toBe(0);
      expect(other.requests).toEqual(['/elsewhere/question.jsonl']);
      expect(mirror.requests).not.toContain('/release/question.jsonl');
      expect(mirror.requests).toHaveLength(MTBENCH_RELEASE.length - 1);
      expect(await arenaJson(['standings', '--judge', 'gpt-4', '--db', db])).toEqual(
        await arenaJson(['standings', '--judge', 'gpt-4', '--db', fromDir]),
      );

      // a manifest pointing a file at the wrong content fails on the pinned hash
      writeFileSync(manifest, JSON.stringify({ 'question.jsonl': `${other.url}judge_prompts.jsonl` }));
      const bad = await fromMirror(join(dir, 'bad.db'), { manifest });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(
        /arena: question\.jsonl .*hash mismatch .*expected 464e2c22f7a021a0f9a584d232338a9a17c40066/,
      );

      writeFileSync(manifest, JSON.stringify({ 'questions.jsonl': `${other.url}question.jsonl` }));
      const unknown = await runArena([
        'import',
        'mtbench',
        '--manifest',
        manifest,
        '--cache',
        tmpDir('arena-cache-'),
        '--db',
        join(dir, 'u.db'),
      ]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/manifest\.json: field "questions\.jsonl": not a file of the release/);
      expect(existsSync(join(dir, 'u.db'))).toBe(false);
    } finally {
      await other.close();
    }
  });
});
