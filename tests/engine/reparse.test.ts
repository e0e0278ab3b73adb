// `arena reparse` parses stored replies again without a judge, on games of `mock/quoting`, whose every reply quotes
// the output format ("[[A]]" if A is better, ...) and then ends with its actual verdict.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, runArena, tmpDir } from '../support/cli.ts';
import { MTBENCH_DIR, noMtbench, skipWhy } from '../support/materials.ts';
import { copySqlite } from '../support/run-shared.ts';
import { sqlCount, sqlRows } from '../support/stored-game.ts';

const DIR = MTBENCH_DIR;
skipWhy('reparse', noMtbench('questions, answers and prompts to play games on'));

interface GameRow {
  id: string;
  judge: string;
  order: 'AB' | 'BA';
  reply: string;
  verdict: string;
  parser: string;
  tokens_in: number | null;
  tokens_out: number | null;
  created_at: number;
  run_id: string | null;
}
interface Standing {
  model: string;
  win: number;
  loss: number;
  tie: number;
}

function games(db: string, judge?: string): GameRow[] {
  const sql =
    'SELECT id, judge, "order", reply, verdict, parser, tokens_in, tokens_out, created_at, run_id FROM games' +
    (judge ? ' WHERE judge = ?' : '') +
    ' ORDER BY id';
  return judge ? sqlRows<GameRow>(db, sql, judge) : sqlRows<GameRow>(db, sql);
}

const count = (db: string, table: 'runs' | 'attempts') => sqlCount(db, `SELECT count(*) AS n FROM ${table}`);

/** The verdict the reply states last, mapped to the match's models by the game's order (read straight from the text). */
function finalVerdict(g: GameRow): string {
  const letter = g.reply.trimEnd().match(/\[\[([ABC])\]\]$/)?.[1];
  if (!letter) throw new Error(`reply of game ${g.id} does not end with a verdict`);
  if (letter === 'C') return 'tie';
  return (letter === 'A') === (g.order === 'AB') ? 'model_1' : 'model_2';
}

const MODELS = 'gpt-4,claude-v1,llama-13b';

/**
 * The release's questions, references, judge prompts and MODELS' answers, without the votes and judgments every
 * write here would re-report (0.7 s of CPU a write) and no test reads.
 */
async function playable(db: string): Promise<void> {
  const dir = DIR!;
  await arenaOk(['import', 'questions', join(dir, 'question.jsonl'), '--db', db]);
  await arenaOk(['import', 'references', join(dir, 'reference_answer', 'gpt-4.jsonl'), '--db', db]);
  await arenaOk(['import', 'prompts', join(dir, 'judge_prompts.jsonl'), '--db', db]);
  const answers = MODELS.split(',').map((m) => join(dir, 'model_answer', `${m}.jsonl`));
  await arenaOk(['import', 'answers', ...answers, '--db', db]);
}

describe.skipIf(!DIR)('arena reparse', { timeout: 240_000 }, () => {
  let base: string;
  let db: string;
  let quoting: GameRow[];
  beforeAll(async () => {
    base = join(tmpDir(), 'base.db');
    await playable(base);
    db = join(tmpDir(), 'arena.db');
    copySqlite(base, db);
    /** turn 1 of MODELS judged by `judge`, its replies parsed by the fastchat parser */
    const play = (judge: string) =>
      arenaOk([
        'run',
        '--judge',
        judge,
        '--parser',
        'fastchat',
        '--models',
        MODELS,
        '--turns',
        '1',
        '--db',
        db,
      ]);
    await play('mock/quoting');
    // another judge's games, also parsed with fastchat: `--judge` must leave them alone
    await play('mock/random');
    quoting = games(db, 'mock/quoting');
  }, 240_000);

  it("FastChat's precedence parser reads every quoting reply as A", () => {
    expect(quoting).toHaveLength(3 * 80 * 2);
    for (const g of quoting) {
      expect(g.reply).toMatch(/"\[\[A\]\]".*"\[\[B\]\]".*"\[\[C\]\]"/);
      expect(g.parser).toBe('fastchat@1');
      expect(g.verdict).toBe(g.order === 'AB' ? 'model_1' : 'model_2');
    }
    // the final verdicts are a mix, so a parser that reads them has something to change
    const finals = new Set(quoting.map((g) => g.reply.trimEnd().slice(-5)));
    expect(finals).toEqual(new Set(['[[A]]', '[[B]]', '[[C]]']));
  });

  it('--dry-run reports the changes and changes nothing', async () => {
    const before = games(db);
    const expected = quoting.filter((g) => finalVerdict(g) !== g.verdict).length;
    const out = await arenaOk([
      'reparse',
      '--parser',
      'last',
      '--judge',
      'mock/quoting',
      '--dry-run',
      '--db',
      db,
    ]);
    expect(out).toContain(
      `${quoting.length} games re-parsed with last@1: ${expected} verdict(s) would change, 0 unparsable`,
    );
    expect(games(db)).toEqual(before);
  });

  it('--parser last changes exactly the games whose final verdict is not A, stores the parser version, calls no judge', async () => {
    const allBefore = games(db);
    const runsBefore = count(db, 'runs');
    const attemptsBefore = count(db, 'attempts');
    const standingsBefore = await arenaJson<Standing[]>(['standings', '--judge', 'mock/quoting', '--db', db]);
    // fastchat reads AB as model_1 and BA as model_2: every match is inconsistent, so every model only ties
    for (const s of standingsBefore) expect(s).toMatchObject({ win: 0, loss: 0, tie: 2 * 80 });

    const changed = quoting.filter((g) => finalVerdict(g) !== g.verdict);
    const r = await runArena(['reparse', '--parser', 'last', '--judge', 'mock/quoting', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `${quoting.length} games re-parsed with last@1: ${changed.length} verdict(s) changed, 0 unparsable`,
    );

    const after = new Map(games(db, 'mock/quoting').map((g) => [g.id, g]));
    expect(after.size).toBe(quoting.length);
    const changedIds = new Set<string>();
    for (const g of quoting) {
      const a = after.get(g.id)!;
      expect(a.verdict).toBe(finalVerdict(g));
      expect(a.parser).toBe('last@1');
      if (a.verdict !== g.verdict) changedIds.add(g.id);
      // the stored fact is untouched: same reply, tokens, time and run (no judge was called again)
      expect({ ...a, verdict: undefined, parser: undefined }).toEqual({
        ...g,
        verdict: undefined,
        parser: undefined,
      });
    }
    expect(changedIds).toEqual(new Set(changed.map((g) => g.id)));
    expect(count(db, 'runs')).toBe(runsBefore);
    expect(count(db, 'attempts')).toBe(attemptsBefore);
    // the other judge's games are exactly as they were
    expect(games(db, 'mock/random')).toEqual(allBefore.filter((g) => g.judge === 'mock/random'));

    // the standings follow: the same as a fresh database whose run parsed the same replies with `last`
    const standingsAfter = await arenaJson<Standing[]>(['standings', '--judge', 'mock/quoting', '--db', db]);
    expect(standingsAfter).not.toEqual(standingsBefore);
    const fresh = join(tmpDir(), 'fresh.db');
    copySqlite(base, fresh);
    await arenaOk([
      'run',
      '--judge',
      'mock/quoting',
      '--parser',
      'last',
      '--models',
      MODELS,
      '--turns',
      '1',
      '--db',
      fresh,
    ]);
    expect(standingsAfter).toEqual(
      await arenaJson<Standing[]>(['standings', '--judge', 'mock/quoting', '--db', fresh]),
    );
    expect(standingsAfter.some((s) => s.win > 0)).toBe(true);

    // again with the same parser: nothing left to change
    const again = await arenaOk(['reparse', '--parser', 'last', '--judge', 'mock/quoting', '--db', db]);
    expect(again).toContain(`${quoting.length} games re-parsed with last@1: 0 verdict(s) changed`);
    // and back to fastchat: the same games change back
    const back = await arenaOk(['reparse', '--parser', 'fastchat', '--judge', 'mock/quoting', '--db', db]);
    expect(back).toContain(`${changed.length} verdict(s) changed`);
    expect(games(db, 'mock/quoting')).toEqual(quoting);
  });

  it('an unknown parser is a usage error, and a missing database is not created', async () => {
    const r = await runArena(['reparse', '--parser', 'first', '--db', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--parser must be one of last, fastchat, lenient, recorded; got "first"/);
    const missing = join(tmpDir(), 'missing.db');
    const m = await runArena(['reparse', '--db', missing]);
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(/no such database/);
    expect(existsSync(missing)).toBe(false);
  });
});
