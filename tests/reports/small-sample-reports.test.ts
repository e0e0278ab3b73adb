// The 30-question rule (MIN_QUESTIONS_FOR_INTERVALS) beyond the ratings: length model, style control, health,
// the two-judge comparison and /variants show no interval on MT-Bench's 10 writing questions (81-90, each release
// file cut to them) and say why: on the CLI, in the JSON (`intervalsWithheld`) and on the site.
import { gunzipSync } from 'node:zlib';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fewQuestionsForInterval } from '../../src/core/stats/rating-rows.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { arenaJson, arenaOk, tmpDir } from '../support/cli.ts';
import { JUDGE_LLAMA2_DIR, MTBENCH_DIR, noMtbenchOrJudgeLlama2, skipWhy } from '../support/materials.ts';

const LLAMA = 'llama-2-70b-instruct-v2';
const WRITING = new Set([81, 82, 83, 84, 85, 86, 87, 88, 89, 90]);
const REASON = fewQuestionsForInterval(10);
const WITHHELD = { questions: 10, reason: REASON };
const SKIP = skipWhy('small-sample-reports', noMtbenchOrJudgeLlama2());

/** The lines of a JSONL text whose question_id is one of the writing questions. */
const jsonlSlice = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim() && WRITING.has((JSON.parse(l) as { question_id: number }).question_id))
    .join('\n') + '\n';
const csvSlice = (text: string) => {
  const [head, ...rows] = text.split('\n');
  return [head, ...rows.filter((r) => WRITING.has(Number(r.split(',')[0])))].join('\n') + '\n';
};

describe.skipIf(!!SKIP)('no interval on a 10-question set (MT-Bench writing), and why', () => {
  const dir = tmpDir('arena-small-reports-');
  const db = join(dir, 'arena.db');
  beforeAll(async () => {
    const mt = MTBENCH_DIR!;
    writeFileSync(join(dir, 'question.jsonl'), jsonlSlice(readFileSync(join(mt, 'question.jsonl'), 'utf8')));
    const answers: string[] = [];
    for (const f of readdirSync(join(mt, 'model_answer'))) {
      answers.push(join(dir, f));
      writeFileSync(answers.at(-1)!, jsonlSlice(readFileSync(join(mt, 'model_answer', f), 'utf8')));
    }
    const votes = ['mt_bench_human.csv', 'mt_bench_gpt4_pair.csv'].map((f) => {
      writeFileSync(join(dir, f), csvSlice(readFileSync(join(mt, 'human_judgments', f), 'utf8')));
      return join(dir, f);
    });
    const study = join(JUDGE_LLAMA2_DIR!, 'model_judgment/L40-Llama-2-70b-instruct-v2.jsonl.gz');
    writeFileSync(join(dir, 'llama.jsonl'), jsonlSlice(gunzipSync(readFileSync(study)).toString('utf8')));
    await arenaOk(['import', 'questions', '--db', db, join(dir, 'question.jsonl')]);
    await arenaOk(['import', 'answers', '--db', db, ...answers]);
    await arenaOk(['import', 'votes', '--db', db, ...votes]);
    await arenaOk(['import', 'judgments', '--db', db, '--judge', LLAMA, join(dir, 'llama.jsonl')]);
  }, 120_000);

  it('arena length: the length effect and length-controlled win rates without interval, no round run', async () => {
    const r = await arenaJson<{
      lengthEffect: { coefficient: number; lo: number | null; hi: number | null };
      models: { model: string; lcWinRate: number | null; lo: number | null; hi: number | null }[];
      rounds: number;
      intervalsWithheld?: unknown;
    }>(['length', '--db', db, '--judge', 'gpt-4']);
    expect(r.intervalsWithheld).toEqual(WITHHELD);
    expect(Number.isFinite(r.lengthEffect.coefficient)).toBe(true);
    expect([r.lengthEffect.lo, r.lengthEffect.hi]).toEqual([null, null]);
    expect(r.models).toHaveLength(6);
    for (const m of r.models) {
      expect(Number.isFinite(m.lcWinRate), m.model).toBe(true);
      expect([m.lo, m.hi], m.model).toEqual([null, null]);
    }
    expect(r.rounds).toBe(0);
    const text = await arenaOk(['length', '--db', db, '--judge', 'gpt-4']);
    expect(text).toContain('no 95% interval) log-odds');
    expect(text).toContain(`No intervals: ${REASON}.`);
  });

  it('arena ratings --style: ratings and coefficients without interval or Rank (UB), bootstrap and sandwich', async () => {
    type Style = {
      rows: { model: string; rating: number; lo: unknown; hi: unknown; rank: unknown; rawLo: unknown }[];
      features: { feature: string; coefficient: number; lo: unknown; hi: unknown }[];
      intervalsWithheld?: unknown;
    };
    for (const method of ['bootstrap', 'sandwich']) {
      const args = ['ratings', '--db', db, '--judge', 'gpt-4', '--style', 'length,markdown'];
      const r = await arenaJson<Style>([...args, '--intervals', method]);
      expect(r.intervalsWithheld, method).toEqual(WITHHELD);
      expect(r.rows).toHaveLength(6);
      for (const x of r.rows) {
        expect(Number.isFinite(x.rating)).toBe(true);
        expect([x.lo, x.hi, x.rank, x.rawLo], `${method} ${x.model}`).toEqual([null, null, null, null]);
      }
      expect(r.features.length).toBeGreaterThan(0);
      for (const f of r.features) expect([f.lo, f.hi], `${method} ${f.feature}`).toEqual([null, null]);
      const text = await arenaOk([...args, '--intervals', method]);
      expect(text).toContain(`no intervals or Rank (UB): ${REASON}`);
    }
  });

  it('arena health: no separability, agreement with confidence or correlation interval; Brier and points stay', async () => {
    type Row = {
      judge: string;
      separated: unknown;
      separability: unknown;
      referenceSeparated: unknown;
      agreementWithConfidence: unknown;
      separatedMonteCarlo: unknown;
      brier: number;
      spearman: { value: number; lo: unknown; hi: unknown };
      intervalsWithheld?: unknown;
    };
    const args = [
      'health',
      '--db',
      db,
      '--judge',
      `gpt-4,${LLAMA}`,
      '--reference',
      'human',
      '--rounds',
      '200',
    ];
    const rows = await arenaJson<Row[]>(args);
    expect(rows.map((r) => r.judge)).toEqual(['gpt-4', LLAMA]);
    for (const r of rows) {
      expect(r.intervalsWithheld, r.judge).toEqual(WITHHELD);
      expect(
        [r.separated, r.separability, r.referenceSeparated, r.agreementWithConfidence, r.separatedMonteCarlo],
        r.judge,
      ).toEqual([null, null, null, null, null]);
      expect([r.spearman.lo, r.spearman.hi], r.judge).toEqual([null, null]);
      expect(Number.isFinite(r.spearman.value), r.judge).toBe(true);
      expect(Number.isFinite(r.brier), r.judge).toBe(true);
    }
    const text = await arenaOk(args);
    expect(text).toContain(`gpt-4: no separability, agreement with confidence or 95% interval: ${REASON}`);
    expect(text).not.toMatch(/\[\d\.\d{3}, /);
  });

  it('arena judges --report: the like-for-like figures without interval, and why', async () => {
    const args = ['judges', '--db', db, '--report', '--judge', `gpt-4,${LLAMA}`];
    const r = await arenaJson<{
      likeForLike: {
        questions: number;
        rounds: number;
        intervalsWithheld?: unknown;
        inconsistencyRatio: { value: number; interval: unknown };
        r: { value: number; interval: unknown };
        judges: { inconsistency: { interval: unknown }; agreement: { interval: unknown }[] }[];
      }[];
    }>(args);
    const l = r.likeForLike[0]!;
    expect(l.questions).toBe(10);
    expect(l.intervalsWithheld).toEqual(WITHHELD);
    expect(l.rounds).toBe(0);
    expect(Number.isFinite(l.inconsistencyRatio.value)).toBe(true);
    const intervals = [
      l.inconsistencyRatio,
      l.r,
      ...l.judges.flatMap((j) => [j.inconsistency, ...j.agreement]),
    ];
    for (const e of intervals) expect(e.interval).toBeNull();
    const text = await arenaOk(args);
    expect(text).toContain(`(no intervals: ${REASON}): `);
    expect(text).not.toMatch(/% \[\d/);
  });

  describe('the site', () => {
    let store: SqliteStore;
    let app: ReturnType<typeof createApp>;
    beforeAll(() => {
      store = openSqliteStore(db);
      app = createApp({ store, bootstrapRounds: 200 });
    });
    afterAll(async () => {
      await store?.close();
    });
    const get = async (path: string) => {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      return res.text();
    };

    it('/health and /api/health: the counts and intervals withheld, the reason shown', async () => {
      const api = JSON.parse(await get('/api/health')) as Record<string, unknown>[];
      expect(api.length).toBe(2);
      for (const row of api)
        expect(row).toMatchObject({
          separated: null,
          separability: null,
          agreementWithConfidence: null,
          spearmanLo: null,
          separatedMcLo: null,
          intervalsWithheld: REASON,
        });
      const html = await get('/health');
      expect(html).toContain(`gpt-4: no separability, agreement with confidence or 95% interval: ${REASON}.`);
    });

    it('/style and /api/style: ratings without interval or Rank (UB), the reason shown', async () => {
      const api = JSON.parse(await get('/api/style?judge=gpt-4')) as Record<string, unknown>[];
      expect(api).toHaveLength(6);
      for (const row of api) expect(row).toMatchObject({ lo: null, hi: null, rank: null, rawLo: null });
      const html = await get('/style?judge=gpt-4');
      expect(html).toContain(`No 95% interval or Rank (UB): ${REASON}.`);
    });

    it('/api/variant-terms: the position term and the length effect without interval, the reason in the note', async () => {
      const api = JSON.parse(await get(`/api/variant-terms?judge=${LLAMA}`)) as {
        term: string;
        estimate: number | null;
        se: number | null;
        lo: number | null;
        hi: number | null;
        questions: number | null;
        note: string;
      }[];
      for (const term of ['position', 'length']) {
        const t = api.find((r) => r.term === term)!;
        expect(t, term).toBeDefined();
        expect(Number.isFinite(t.estimate) && Number.isFinite(t.se), term).toBe(true);
        expect(t.questions, term).toBe(10);
        expect([t.lo, t.hi], term).toEqual([null, null]);
        expect(t.note, term).toContain(`no interval: ${REASON}`);
      }
    });
  });
});
