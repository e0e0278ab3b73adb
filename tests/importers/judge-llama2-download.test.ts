// The study's judgments without JUDGE_LLAMA2_DIR: the pinned download from a local HTTP server serving the origin's
// zip (built here with Python's zipfile) or the gzip as a mirror; a changed byte is refused.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadStudyJudgments, STUDY_JUDGMENTS, STUDY_PIN } from '../../src/importers/judge-llama2.ts';
import { tmpDir } from '../support/cli.ts';

const JL = process.env.JUDGE_LLAMA2_DIR;
const SKIP = JL
  ? ''
  : 'JUDGE_LLAMA2_DIR is not set: set it to ../shared/judge_llama2 (the file the local server serves)';
if (SKIP) console.warn(`[judge-llama2-download] skipped: ${SKIP}`);

describe.skipIf(!!SKIP)('the pinned download of the study judgments', () => {
  const dir = tmpDir('arena-jl2-dl-');
  const bodies = new Map<string, Buffer>();
  const requests: string[] = [];
  let server: Server;
  let base = '';
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

  beforeAll(async () => {
    const gz = readFileSync(join(JL!, STUDY_JUDGMENTS));
    writeFileSync(join(dir, 'judgments.jsonl'), gunzipSync(gz));
    const py = spawnSync(
      '/usr/bin/python3',
      [
        '-c',
        'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED).write(sys.argv[2], "L40-Llama-2-70b-instruct-v2.jsonl")',
        join(dir, 'study.zip'),
        join(dir, 'judgments.jsonl'),
      ],
      { encoding: 'utf8' },
    );
    expect(py.status, py.stderr).toBe(0);
    bodies.set('/study.zip', readFileSync(join(dir, 'study.zip')));
    bodies.set('/study.jsonl.gz', gz);
    const bad = Buffer.from(gz);
    bad[bad.length >> 1] = bad[bad.length >> 1]! ^ 0xff;
    bodies.set('/bad.jsonl.gz', bad);
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const b = bodies.get(req.url ?? '');
      if (!b) return void res.writeHead(404).end('not found');
      res.writeHead(200).end(b);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('the shared gzip is the pinned one', () => {
    const gz = readFileSync(join(JL!, STUDY_JUDGMENTS));
    expect([gz.length, sha(gz)]).toEqual([STUDY_PIN.gzip.size, STUDY_PIN.gzip.sha256]);
    const jsonl = gunzipSync(gz);
    expect([jsonl.length, sha(jsonl)]).toEqual([STUDY_PIN.jsonl.size, STUDY_PIN.jsonl.sha256]);
  });

  it("from the origin's zip: extracted, checked against the pinned content, kept as gzip; a second call uses the cache", async () => {
    const cacheDir = join(dir, 'cache-zip');
    const file = await downloadStudyJudgments({ url: `${base}/study.zip`, cacheDir, retries: 0 });
    expect(file).toBe(join(cacheDir, STUDY_JUDGMENTS));
    expect(sha(gunzipSync(readFileSync(file)))).toBe(STUDY_PIN.jsonl.sha256);
    const n = requests.length;
    expect(await downloadStudyJudgments({ url: `${base}/study.zip`, cacheDir, retries: 0 })).toBe(file);
    expect(requests.length).toBe(n);
  });

  it('from a gzip mirror: the bytes themselves are pinned', async () => {
    const cacheDir = join(dir, 'cache-gz');
    const file = await downloadStudyJudgments({ url: `${base}/study.jsonl.gz`, cacheDir, retries: 0 });
    expect(sha(readFileSync(file))).toBe(STUDY_PIN.gzip.sha256);
  });

  it('a changed byte is refused and nothing is cached', async () => {
    const cacheDir = join(dir, 'cache-bad');
    await expect(
      downloadStudyJudgments({ url: `${base}/bad.jsonl.gz`, cacheDir, retries: 0 }),
    ).rejects.toThrow(
      /bad\.jsonl\.gz: content does not match the pinned file: gzip of 1808327 bytes, sha256 [0-9a-f]{64} \(expected 1808327 bytes/,
    );
    expect(existsSync(join(cacheDir, STUDY_JUDGMENTS))).toBe(false);
  });
});
