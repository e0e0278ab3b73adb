// arena publish's SQL: applied to a fresh database built by the same migrations, it reproduces every row.
import { describe, expect, it } from 'vitest';
import { publishSql, sqlLiteral } from '../../src/entry/publish.ts';
import { openMemoryStore } from '../../src/storage/sqlite.ts';
import { ANSWERS, makeGame, PROMPTS, QUESTIONS, REFERENCES } from '../storage/contract.ts';

describe('publish SQL', () => {
  it('quotes strings, keeps numbers and NULL', () => {
    expect(sqlLiteral("it's")).toBe("'it''s'");
    expect(sqlLiteral('a\nb; DROP TABLE x; --')).toBe("'a\nb; DROP TABLE x; --'");
    expect(sqlLiteral(1.5)).toBe('1.5');
    expect(sqlLiteral(null)).toBe('NULL');
    expect(() => sqlLiteral(Number.NaN)).toThrow(/\[publish\]/);
  });

  it('round-trips every table through a fresh migrated database, in statements under 90 KB', async () => {
    const src = openMemoryStore();
    const long = 'x'.repeat(30_000);
    const games = [
      makeGame({ reply: `it's "quoted"\n${long}` }),
      makeGame({ order: 'BA', reply: '🎉 ü — [[A]]' }),
      ...Array.from({ length: 20 }, () => makeGame({ userPrompt: long })),
    ];
    await src.importBundle({
      questions: { source: "q's.jsonl", items: QUESTIONS },
      references: REFERENCES,
      answers: [{ source: 'a.jsonl', items: ANSWERS }],
      prompts: PROMPTS,
      games,
      votes: [
        {
          source: 'v.csv',
          items: [
            {
              judge: 'human',
              voter: 'e1',
              questionId: 81,
              turn: 1,
              model1: 'alpha',
              model2: 'beta',
              winner: 'tie',
              line: 2,
            },
          ],
        },
      ],
    });
    await src.runs.save({
      id: 'run-1',
      startedAt: 1,
      finishedAt: 2,
      judge: 'judge-x',
      mode: 'pairwise-all',
      config: {},
      planned: 2,
      toPlay: 2,
      played: 2,
      failed: 0,
      tokensIn: 3,
      tokensOut: 4,
      status: 'done',
    });
    const stmts = [...publishSql(src.sqlite)];
    for (const s of stmts) expect(s.length).toBeLessThan(100_000);
    expect(stmts.filter((s) => s.startsWith('INSERT INTO "games"')).length).toBeGreaterThan(1); // split
    const dst = openMemoryStore();
    // something old in the destination is replaced, not merged
    await dst.importBundle({
      questions: { source: 'old.jsonl', items: [{ id: 1, category: 'old', turns: ['old'] }] },
    });
    dst.sqlite.exec(stmts.join(''));
    expect(await dst.catalog.questions()).toEqual(await src.catalog.questions());
    expect(await dst.catalog.answers()).toEqual(await src.catalog.answers());
    expect(await dst.catalog.references()).toEqual(await src.catalog.references());
    expect(await dst.catalog.prompts()).toEqual(await src.catalog.prompts());
    expect(await dst.games.list()).toEqual(await src.games.list());
    expect(await dst.votes.list()).toEqual(await src.votes.list());
    expect(await dst.runs.list()).toEqual(await src.runs.list());
    await src.close();
    await dst.close();
  });

  it('groups rows into statements of at most 10 KB (wrangler splits a local file in time quadratic in their length)', async () => {
    const src = openMemoryStore();
    const games = Array.from({ length: 200 }, (_, i) => makeGame({ reply: `${'r'.repeat(i * 10)} [[A]]` }));
    await src.importBundle({ questions: { source: 'q.jsonl', items: QUESTIONS }, games });
    const inserts = [...publishSql(src.sqlite)].filter((s) => s.startsWith('INSERT INTO "games"'));
    expect(inserts.length).toBeGreaterThan(1);
    for (const s of inserts) expect(Buffer.byteLength(s)).toBeLessThanOrEqual(10_000);
    const rows = inserts.reduce((n, s) => n + s.split('\n(').length - 1, 0);
    expect(rows).toBe(200);
    await src.close();
  });

  it("leaves what the site recorded: its votes, annotations and redeemed invites; replaces the file's other votes", async () => {
    const match = { questionId: 81, turn: 1, model1: 'alpha', model2: 'beta' };
    const human = { judge: 'human', voter: 'e1', ...match, winner: 'tie' as const, line: 1 };
    const src = openMemoryStore();
    await src.importBundle({
      questions: { source: 'q.jsonl', items: QUESTIONS },
      votes: [{ source: 'h.csv', items: [human] }],
    });
    await src.annotators.add('alice', 'hash-a', 1);
    await src.annotators.add('bob', 'hash-b', 1);
    await src.annotators.revoke('bob', 2);
    const site = openMemoryStore();
    site.sqlite.exec([...publishSql(src.sqlite)].join(''));
    // on the site: alice logs in and votes; here: another human vote
    const alice = (await site.annotators.redeem('hash-a', 3))!;
    const n = await site.annotators.show(alice.id, match, 'AB', 4);
    await site.annotators.answer({ annotation: n, choice: 'B', reason: null, at: 5 });
    await src.importBundle({ votes: [{ source: 'h.csv', items: [human, { ...human, turn: 2, line: 2 }] }] });
    site.sqlite.exec([...publishSql(src.sqlite)].join(''));
    expect(await site.votes.list()).toEqual([
      { judge: 'annotators', voter: `annotator_${alice.id}`, ...match, winner: 'model_2' },
      ...(await src.votes.list()),
    ]);
    expect(await site.annotators.shown(alice.id)).toEqual([
      { ...n, choice: 'B', reason: null, answeredAt: 5 },
    ]);
    expect(await site.annotators.redeem('hash-a', 6)).toBeUndefined();
    expect(await site.annotators.redeem('hash-b', 6)).toBeUndefined();
    expect((await site.annotators.list()).map((a) => [a.name, a.usedAt, a.revokedAt])).toEqual([
      ['alice', 3, null],
      ['bob', null, 2],
    ]);
    await src.close();
    await site.close();
  });
});
