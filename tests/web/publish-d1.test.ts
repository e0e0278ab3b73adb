// `arena publish` to a real local D1 and back (issue #12, item 3): any Unicode text, NUL and every control character
// included, arrives byte for byte.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openD1Store } from '../../src/storage/d1.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { runArena, tmpDir } from '../support/cli.ts';
import { ANSWERS, makeGame, PROMPTS, QUESTIONS } from '../storage/contract.ts';
import { openLocalD1 } from './local-d1.ts';
import { localD1, WRANGLER_ENV } from './support.ts';

Object.assign(process.env, WRANGLER_ENV);

/** Strings that have broken SQL files, parsers and terminals. */
const C0 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('');
const HOSTILE = [
  'nul \u0000 in the middle',
  '\u0000',
  '\u0000\u0000 leading NULs',
  `every C0 control: ${C0} and DEL \u007f`,
  "quotes ' '' \" \\ \\' ; -- comment\n/* block */ ; DROP TABLE games; --",
  'line separators \u2028 \u2029 \r\n \r and a BOM \ufeff',
  'astral 🎉👩‍👩‍👧‍👦 𝕏 \u{10ffff} and non-characters \uffff \ufffe',
  'combining e\u0301 and RTL \u202e\u202d override, zero width \u200b\u200d',
  `long with a NUL at the end ${'x'.repeat(60_000)}\u0000`,
];

/** the source file's one run (its judge and config hold a NUL) */
const RUN = {
  id: 'run-1',
  startedAt: 1,
  finishedAt: 2,
  judge: `judge \u0000 x`,
  mode: 'pairwise-all',
  config: { x: '\u0000' },
  planned: 1,
  toPlay: 1,
  played: 1,
  failed: 0,
  tokensIn: 1,
  tokensOut: 1,
  status: 'done' as const,
};

describe('arena publish to D1 and back', () => {
  it('hostile strings in games, answers, questions and model names survive byte for byte', async () => {
    const dir = tmpDir('arena-publish-d1-');
    const file = join(dir, 'src.db');
    const src = openSqliteStore(file);
    const games = HOSTILE.map((h, i) =>
      makeGame({
        reply: `${h} [[A]]`,
        userPrompt: h,
        systemPrompt: `sys ${i} ${h}`,
        match: {
          questionId: 81,
          category: 'writing',
          turn: 1,
          model1: 'alpha',
          model2: `beta ${h.slice(0, 200)}`,
        },
      }),
    );
    // a reply of a megabyte (under the judge reply cap) in a row far longer than one D1 statement
    games.push(makeGame({ reply: `${'long reply ü 🎉 \u0000 '.repeat(50_000)}[[B]]`, userPrompt: 'big' }));
    await src.importBundle({
      questions: { source: 'q.jsonl', items: QUESTIONS },
      // (model names are short: the long text goes into the turns)
      answers: [
        {
          source: 'a.jsonl',
          items: [
            ...ANSWERS,
            ...HOSTILE.map((h, i) => ({ model: `m${i} ${h.slice(0, 200)}`, questionId: 81, turns: [h, h] })),
          ],
        },
      ],
      prompts: PROMPTS,
      games,
    });
    await src.runs.save(RUN);
    const hex = (db: { prepare(s: string): { all(): unknown[] } }) =>
      db
        .prepare(
          'SELECT id, hex(reply) AS r, hex(user_prompt) AS u, hex(model_2) AS m FROM games ORDER BY id',
        )
        .all();
    const want = {
      games: hex(src.sqlite),
      answers: src.sqlite
        .prepare('SELECT hex(model) AS m, hex(turns) AS t FROM answers ORDER BY model')
        .all(),
    };
    const listed = {
      games: await src.games.list(),
      answers: await src.catalog.answers(),
      runs: await src.runs.list(),
    };
    await src.close();
    expect(listed.games.map((g) => g.userPrompt)).toEqual([...HOSTILE, 'big']); // SQLite itself keeps them

    // D1 holds other rows first, hostile ones too (as a site published from an older file would): one publish
    // must replace them, not add to them (the Store over D1 below reads exactly the file's rows)
    const persist = await localD1(dir);
    const before = await openLocalD1(persist);
    try {
      const old = openD1Store(before.db);
      await old.importBundle({
        questions: { source: 'old-q.jsonl', items: QUESTIONS },
        answers: [
          {
            source: 'old-a.jsonl',
            items: [{ model: `old ${HOSTILE[3]}`, questionId: 81, turns: [HOSTILE[0]!, HOSTILE[4]!] }],
          },
        ],
        prompts: PROMPTS,
        games: [makeGame({ id: 'old-game', reply: `old ${HOSTILE[0]} [[B]]`, userPrompt: HOSTILE[4] })],
      });
      await old.runs.save({ ...RUN, id: 'old-run', judge: HOSTILE[1]! });
      expect((await old.games.list()).map((g) => g.id)).toEqual(['old-game']);
      expect((await old.runs.list()).map((r) => r.id)).toEqual(['old-run']);
    } finally {
      await before.dispose();
    }
    const pub = await runArena(['publish', '--db', file, '--persist-to', persist], { timeoutMs: 180_000 });
    expect(pub.code, (pub.stderr + pub.stdout).slice(-3000)).toBe(0);
    // the project's own wrangler, run with this node: no npm start (npx) per call
    expect(pub.stdout).toMatch(/^wrangler d1 execute mt-arena --local --file \S+ --yes --persist-to /m);
    expect(pub.stdout).not.toContain('npx');

    const site = await openLocalD1(persist);
    try {
      const d1 = site.db;
      const rows = async (sql: string) => (await d1.prepare(sql).all()).results;
      // the bytes SQLite holds in D1 are the bytes of the source database
      expect(
        await rows(
          'SELECT id, hex(reply) AS r, hex(user_prompt) AS u, hex(model_2) AS m FROM games ORDER BY id',
        ),
      ).toEqual(want.games);
      expect(await rows('SELECT hex(model) AS m, hex(turns) AS t FROM answers ORDER BY model')).toEqual(
        want.answers,
      );
      // and the site's Store over D1 reads the same strings as the Store over the SQLite file
      const store = openD1Store(d1);
      expect(await store.games.list()).toEqual(listed.games);
      expect(await store.catalog.answers()).toEqual(listed.answers);
      expect(await store.runs.list()).toEqual(listed.runs);
    } finally {
      await site.dispose();
    }
  }, 400_000);
});
