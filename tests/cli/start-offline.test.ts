// `npm start` without the release (issue 12, item 15): offline it says what to do, a wrong MTBENCH_DIR is named, and
// no empty database is left that a second `npm start` would serve as the leaderboard.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArena, tmpDir } from '../support/cli.ts';
import { freePort } from '../support/port.ts';

// only the release is under test: the study's judgments and the labelled sets are not looked for (whatever
// the environment running the tests says), so nothing else is downloaded or read
const ONLY_RELEASE = { JUDGE_LLAMA2_DIR: 'none', JUDGE_SETS_DIR: 'none' };

describe('arena start without the release', { timeout: 120_000 }, () => {
  it('offline: names MTBENCH_DIR, --base-url and --manifest, and creates no database', async () => {
    const dir = tmpDir();
    const db = join(dir, 'arena.db');
    const r = await runArena(
      ['start', '--db', db, '--port', '0', '--base-url', `http://127.0.0.1:${await freePort()}/mt_bench`],
      { env: { ...ONLY_RELEASE, MTBENCH_DIR: undefined, XDG_CACHE_HOME: tmpDir() } },
    );
    expect(r.code).toBe(1);
    const last = r.stderr.trimEnd().split('\n').at(-1)!;
    expect(last).toMatch(/^arena: could not download the MT-Bench release: .*download failed/);
    expect(last).toMatch(/Set MTBENCH_DIR/);
    expect(last).toMatch(/--base-url URL or --manifest FILE/);
    expect(r.stdout).not.toMatch(/leaderboard on/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a MTBENCH_DIR that does not exist, or holds no release, is named and leaves nothing', async () => {
    const dir = tmpDir();
    const db = join(dir, 'arena.db');
    const missing = join(dir, 'nope');
    let r = await runArena(['start', '--db', db, '--port', '0'], {
      env: { ...ONLY_RELEASE, MTBENCH_DIR: missing },
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd()).toBe(
      `arena: MTBENCH_DIR=${missing}: no such folder; fix it or unset it to download the release`,
    );
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    r = await runArena(['start', '--db', db, '--port', '0'], {
      env: { ...ONLY_RELEASE, MTBENCH_DIR: empty },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/MTBENCH_DIR=.*empty: not an MT-Bench release \(no question\.jsonl/);
    expect(readdirSync(dir)).toEqual(['empty']);
  });

  it('a release with a broken file: the error names file and line, and no empty database stays behind', async () => {
    const dir = tmpDir();
    const rel = join(dir, 'mt_bench');
    mkdirSync(rel);
    writeFileSync(
      join(rel, 'question.jsonl'),
      '{"question_id": 81, "category": "writing", "turns": ["hi"]}\n{oops\n',
    );
    const r = await runArena(['start', '--db', join(dir, 'arena.db'), '--port', '0'], {
      env: { ...ONLY_RELEASE, MTBENCH_DIR: rel },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/question\.jsonl:2/);
    expect(readdirSync(dir)).toEqual(['mt_bench']);
  });
});
