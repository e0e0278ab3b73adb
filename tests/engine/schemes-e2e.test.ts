// The fine-tuned judges' and Arena-Hard's prompt schemes end to end: `arena run --prompts <scheme>` against the
// test server answering in each judge's format; games, standings, agreement and Arena-Hard's weighted standings
// and ratings checked against values computed here from the answer files alone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autojSchemes } from '../../src/importers/autoj.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { AUTOJ_FIXTURE, AUTOJ_FIXTURE_START } from '../support/autoj-fixture.ts';
import { arenaJson, arenaOk, REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';

const OWN = join(REPO_ROOT, 'questions');
const X = 'arena-sage';
const Y = 'arena-drift';
/** every game of this question gets a malformed reply: its two matches (turns 1 and 2) must be errors */
const BROKEN_Q = 1002;

interface QuestionRow {
  question_id: number;
  turns: string[];
}
const questions = readFileSync(join(OWN, 'arena.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as QuestionRow);
const answers = new Map<string, Map<number, string[]>>();
for (const m of [X, Y]) {
  const rows = readFileSync(join(OWN, 'answers', `${m}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { question_id: number; choices: { turns: string[] }[] });
  answers.set(m, new Map(rows.map((r) => [r.question_id, r.choices[0]!.turns])));
}
const brokenText = questions.find((q) => q.question_id === BROKEN_Q)!.turns[0]!;

// ---- the fake judge: each scheme's prompt in, that judge's output format out ----------------------

/** The text between two markers (the first occurrence after `from`). */
function between(s: string, start: string, end: string): string {
  const i = s.indexOf(start);
  if (i < 0) throw new Error(`marker ${JSON.stringify(start)} not in the prompt`);
  const j = s.indexOf(end, i + start.length);
  if (j < 0) throw new Error(`marker ${JSON.stringify(end)} not in the prompt`);
  return s.slice(i + start.length, j);
}

type Scheme = 'judgelm' | 'pandalm' | 'autoj' | 'prometheus' | 'arena-hard';
const SCHEMES: Scheme[] = ['judgelm', 'pandalm', 'autoj', 'prometheus', 'arena-hard'];

/** Which scheme wrote the prompt, and the two answers as shown (A first). */
function shown(system: string, user: string): { scheme: Scheme; a: string; b: string } {
  if (system.startsWith('You are a helpful and precise assistant')) {
    return {
      scheme: 'judgelm',
      a: between(user, "[The Start of Assistant 1's Answer]\n", "\n\n[The End of Assistant 1's Answer]"),
      b: between(user, "[The Start of Assistant 2's Answer]\n", "\n\n[The End of Assistant 2's Answer]"),
    };
  }
  if (user.startsWith('Below are two responses for a given task.'))
    return {
      scheme: 'pandalm',
      a: between(user, '### Response 1:\n', '\n\n### Response 2:\n'),
      b: between(user, '### Response 2:\n', '\n\n### Evaluation:'),
    };
  if (user.startsWith(AUTOJ_FIXTURE_START))
    return {
      scheme: 'autoj',
      a: between(user, '[Response 1]: ', '\n***\n[Response 2]: '),
      b: between(user, '[Response 2]: ', '\n***\n[END DATA]'),
    };
  if (user.startsWith('###Task Description:'))
    return {
      scheme: 'prometheus',
      a: between(user, '###Response A:\n', '\n\n###Response B:\n'),
      b: between(user, '###Response B:\n', '\n\n###'),
    };
  if (user.startsWith('<|User Prompt|>'))
    return {
      scheme: 'arena-hard',
      a: between(user, "<|The Start of Assistant A's Answer|>\n", "\n<|The End of Assistant A's Answer|>"),
      b: between(user, "<|The Start of Assistant B's Answer|>\n", "\n<|The End of Assistant B's Answer|>"),
    };
  throw new Error(`the fake judge does not know this prompt: ${user.slice(0, 80)}`);
}

/** A length-loving judge with a first-position bias, in positions: what it decides about (A, B). */
function decide(
  scheme: Scheme,
  a: number,
  b: number,
): { verdict: 'A' | 'B' | 'tie'; scores?: [number, number]; strong?: boolean } {
  if (scheme === 'judgelm') {
    const s = (n: number) => Math.min(10, 1 + Math.floor(n / 150));
    const sa = Math.min(10, s(a) + 1); // first-position bias
    const sb = s(b);
    return { verdict: sa > sb ? 'A' : sb > sa ? 'B' : 'tie', scores: [sa, sb] };
  }
  if (scheme === 'prometheus') return { verdict: a * 1.2 >= b ? 'A' : 'B' }; // no tie in relative grading
  if (scheme === 'arena-hard') {
    const r = (a * 1.2) / b;
    if (r > 2) return { verdict: 'A', strong: true };
    if (r > 1.1) return { verdict: 'A', strong: false };
    if (r < 0.5) return { verdict: 'B', strong: true };
    if (r < 1 / 1.1) return { verdict: 'B', strong: false };
    return { verdict: 'tie' };
  }
  // PandaLM, Auto-J: a tie within 10%
  const r = (a * 1.2) / b;
  return { verdict: r > 1.1 ? 'A' : r < 1 / 1.1 ? 'B' : 'tie' };
}

function reply(system: string, user: string): string {
  const { scheme, a, b } = shown(system, user);
  const d = decide(scheme, a.length, b.length);
  const broken = user.includes(brokenText);
  switch (scheme) {
    case 'judgelm':
      return broken
        ? `Assistant 1 scores ${d.scores![0]} and Assistant 2 scores ${d.scores![1]}.`
        : `${d.scores![0]} ${d.scores![1]}\nAssistant 1 wrote ${a.length} characters, Assistant 2 ${b.length}.`;
    case 'pandalm':
      return broken
        ? 'Response 1 is better.\n\n### Reason: ...'
        : `${d.verdict === 'A' ? '1' : d.verdict === 'B' ? '2' : 'Tie'}\n\n### Reason: length ${a.length} vs ${b.length}.\n\n### Reference: ...`;
    case 'autoj':
      return `1. The key factor is detail: ${a.length} vs ${b.length} characters.\n\nSo, the final decision is ${broken ? 'Response 3' : d.verdict === 'A' ? 'Response 1' : d.verdict === 'B' ? 'Response 2' : 'Tie'}.`;
    case 'prometheus':
      return `Response A has ${a.length} characters and Response B ${b.length}. [RESULT] ${broken ? 'Tie' : d.verdict}`;
    case 'arena-hard': {
      const label =
        d.verdict === 'tie'
          ? 'A=B'
          : d.verdict === 'A'
            ? d.strong
              ? 'A>>B'
              : 'A>B'
            : d.strong
              ? 'B>>A'
              : 'B>A';
      return `My own answer first... Assistant A: ${a.length} characters, B: ${b.length}.\n\nMy final verdict is ${broken ? 'A>B (no brackets)' : `[[${label}]]`}.`;
    }
  }
}

// ---- what the answer files say each game must be ---------------------------------------------------

/** An answer as the multi-turn templates show it (our layout), or the turn-1 answer. */
function answerShown(model: string, q: number, turn: number): string {
  const t = answers.get(model)!.get(q)!;
  return turn === 1
    ? t[0]!
    : `[Answer to the Question]\n${t[0]}\n\n[Answer to the Follow-up Question]\n${t[1]}`;
}

type V = 'model_1' | 'model_2' | 'tie' | 'error';
interface Expected {
  q: number;
  turn: number;
  ab: V;
  ba: V;
  abStrong: boolean;
  baStrong: boolean;
}

function expected(scheme: Scheme): Expected[] {
  const out: Expected[] = [];
  for (const { question_id: q } of questions) {
    for (const turn of [1, 2]) {
      const x = answerShown(X, q, turn).length;
      const y = answerShown(Y, q, turn).length;
      const ab = decide(scheme, x, y); // x shown as A
      const ba = decide(scheme, y, x); // y shown as A
      const map = (d: { verdict: 'A' | 'B' | 'tie' }, xFirst: boolean): V =>
        q === BROKEN_Q
          ? 'error'
          : d.verdict === 'tie'
            ? 'tie'
            : (d.verdict === 'A') === xFirst
              ? 'model_1'
              : 'model_2';
      out.push({
        q,
        turn,
        ab: map(ab, true),
        ba: map(ba, false),
        abStrong: !!ab.strong && q !== BROKEN_Q,
        baStrong: !!ba.strong && q !== BROKEN_Q,
      });
    }
  }
  return out;
}

/** FastChat's show_result, computed here by hand for model x. */
function plainStanding(e: Expected[]) {
  let win = 0,
    loss = 0,
    tie = 0,
    error = 0,
    inconsistent = 0;
  for (const m of e) {
    if (m.ab === 'error' || m.ba === 'error') error++;
    else if (m.ab !== m.ba) (tie++, inconsistent++);
    else if (m.ab === 'model_1') win++;
    else if (m.ab === 'model_2') loss++;
    else tie++;
  }
  return { win, loss, tie, error, inconsistent };
}

// ---- the runs ------------------------------------------------------------------------------------

const dir = tmpDir('arena-schemes-');
const db = join(dir, 'arena.db');
let srv: OpenAIServer;
const judge = (s: Scheme) => `openai/${s}-judge`;

beforeAll(async () => {
  srv = await startOpenAIServer({ verdict: ({ system, user }) => reply(system, user) });
  await arenaOk(['import', 'questions', join(OWN, 'arena.jsonl'), '--db', db]);
  await arenaOk([
    'import',
    'answers',
    join(OWN, 'answers', `${X}.jsonl`),
    join(OWN, 'answers', `${Y}.jsonl`),
    '--db',
    db,
  ]);
  // Auto-J's template is not shipped (`arena import autoj` fetches it): a stand-in of the same shape
  const store = openSqliteStore(db);
  await store.importBundle({ prompts: autojSchemes('constants_prompt.py', AUTOJ_FIXTURE) });
  await store.close();
}, 120_000);
afterAll(() => srv?.close());

describe(
  'arena run --prompts <scheme> against the OpenAI-compatible test server',
  { timeout: 180_000 },
  () => {
    for (const scheme of SCHEMES) {
      it(`${scheme}: 96 games stored with the scheme's prompts and parser; malformed replies are errors; standings as computed from the answer files`, async () => {
        const set = scheme === 'prometheus' ? 'prometheus' : scheme;
        const before = srv.completions();
        const r = await runArena(
          [
            'run',
            '--judge',
            judge(scheme),
            '--base-url',
            srv.url,
            '--models',
            `${X},${Y}`,
            '--prompts',
            set,
            '--concurrency',
            '8',
            '--db',
            db,
          ],
          { env: { OPENAI_API_KEY: 'test' } },
        );
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(/96 played, 0 failed/);
        expect(srv.completions() - before).toBe(96);

        const store = openSqliteStore(db, { readonly: true });
        const games = await store.games.list({ judge: judge(scheme) });
        await store.close();
        expect(games).toHaveLength(96);
        const version = {
          judgelm: 'judgelm@1',
          pandalm: 'pandalm@1',
          autoj: 'autoj@1',
          prometheus: 'prometheus-relative@1',
          'arena-hard': 'arena-hard@1',
        }[scheme];
        const exp = new Map(
          expected(scheme).flatMap(
            (e) =>
              [
                [`${e.q}|${e.turn}|AB`, e.ab],
                [`${e.q}|${e.turn}|BA`, e.ba],
              ] as const,
          ),
        );
        for (const g of games) {
          expect(g.parser).toBe(version);
          expect(g.promptName.startsWith(scheme === 'prometheus' ? 'prometheus-rel' : scheme)).toBe(true);
          expect(g.verdict, `${g.match.questionId} turn ${g.match.turn} ${g.order}: ${g.reply}`).toBe(
            exp.get(`${g.match.questionId}|${g.match.turn}|${g.order}`),
          );
        }
        // reference-based questions get the reference templates where the judge has one
        const refNames = new Set(
          games
            .filter((g) => ['math', 'reasoning', 'coding'].includes(g.match.category) && g.match.turn === 1)
            .map((g) => g.promptName),
        );
        expect([...refNames]).toEqual([
          {
            judgelm: 'judgelm-pair-ref-v1',
            pandalm: 'pandalm-pair-v1',
            autoj: 'autoj-pair-v1',
            prometheus: 'prometheus-rel-ref-v1',
            'arena-hard': 'arena-hard-ref-v1',
          }[scheme],
        ]);

        const rows = await arenaJson<
          { model: string; win: number; loss: number; tie: number; error: number; inconsistent: number }[]
        >(['standings', '--judge', judge(scheme), '--db', db]);
        const want = plainStanding(expected(scheme));
        expect(want.error).toBe(2);
        const x = rows.find((r) => r.model === X)!;
        const y = rows.find((r) => r.model === Y)!;
        expect({
          win: x.win,
          loss: x.loss,
          tie: x.tie,
          error: x.error,
          inconsistent: x.inconsistent,
        }).toEqual(want);
        expect({ win: y.win, loss: y.loss }).toEqual({ win: want.loss, loss: want.win });

        // a second identical run pays for nothing; reparse re-reads the games with the scheme's own parser and changes nothing
        const again = await runArena(
          [
            'run',
            '--judge',
            judge(scheme),
            '--base-url',
            srv.url,
            '--models',
            `${X},${Y}`,
            '--prompts',
            set,
            '--db',
            db,
          ],
          { env: { OPENAI_API_KEY: 'test' } },
        );
        expect(again.stdout).toMatch(/0 played, 0 failed, 96 already stored/);
        const rp = await arenaOk(['reparse', '--judge', judge(scheme), '--db', db, '--dry-run']);
        expect(rp).toMatch(/^96 games re-parsed with .*: 0 verdict\(s\) would change, 4 unparsable/m);
      });
    }

    it('their verdicts enter agreement like any judge: JudgeLM vs PandaLM per turn, as computed from the files', async () => {
      const rows = await arenaJson<{ turn: number; setup: string; total: number; agree: number }[]>([
        'agreement',
        '--judges',
        `${judge('judgelm')},${judge('pandalm')}`,
        '--db',
        db,
      ]);
      const label = (e: Expected) =>
        e.ab === 'error' || e.ba === 'error' ? null : e.ab !== e.ba ? 'tie' : e.ab;
      const a = expected('judgelm');
      const b = expected('pandalm');
      for (const turn of [1, 2]) {
        const pairs = a
          .map((e, i) => [label(e), label(b[i]!)] as const)
          .filter((p, i) => a[i]!.turn === turn && p[0] !== null && p[1] !== null);
        const withTie = rows.find((r) => r.turn === turn && r.setup === 'with-tie')!;
        expect({ total: withTie.total, agree: withTie.agree }).toEqual({
          total: pairs.length,
          agree: pairs.filter(([p, q]) => p === q).length,
        });
        const noTie = pairs.filter(([p, q]) => p !== 'tie' && q !== 'tie');
        const withoutTie = rows.find((r) => r.turn === turn && r.setup === 'without-tie')!;
        expect({ total: withoutTie.total, agree: withoutTie.agree }).toEqual({
          total: noTie.length,
          agree: noTie.filter(([p, q]) => p === q).length,
        });
      }
    });

    it("--weight arena-hard: standings and Bradley–Terry from Arena-Hard's weighted battles, as computed from the files", async () => {
      const e = expected('arena-hard');
      let xWin = 0,
        yWin = 0,
        tie = 0,
        inconsistent = 0;
      for (const m of e) {
        if (m.ab === 'error' || m.ba === 'error') continue;
        if (m.ab !== m.ba) inconsistent++;
        for (const [v, strong] of [
          [m.ab, m.abStrong],
          [m.ba, m.baStrong],
        ] as const) {
          if (v === 'tie') tie++;
          else if (v === 'model_1') xWin += strong ? 3 : 1;
          else yWin += strong ? 3 : 1;
        }
      }
      expect(e.some((m) => m.abStrong || m.baStrong)).toBe(true); // the data exercise the weight
      const rows = await arenaJson<
        {
          model: string;
          win: number;
          loss: number;
          tie: number;
          error: number;
          inconsistent: number;
          winRateAdjusted: number;
        }[]
      >(['standings', '--judge', judge('arena-hard'), '--weight', 'arena-hard', '--db', db]);
      const x = rows.find((r) => r.model === X)!;
      expect({ win: x.win, loss: x.loss, tie: x.tie, error: x.error, inconsistent: x.inconsistent }).toEqual({
        win: xWin,
        loss: yWin,
        tie,
        error: 2,
        inconsistent,
      });
      expect(x.winRateAdjusted).toBeCloseTo((xWin + tie / 2) / (xWin + yWin + tie), 12);

      const ratings = await arenaJson<{ model: string; rating: number }[]>([
        'ratings',
        '--judge',
        judge('arena-hard'),
        '--weight',
        'arena-hard',
        '--db',
        db,
      ]);
      const r = Object.fromEntries(ratings.map((k) => [k.model, k.rating]));
      const s = xWin + tie / 2;
      const n = xWin + yWin + tie;
      expect(r[X]! - r[Y]!).toBeCloseTo(400 * Math.log10(s / (n - s)), 6);

      // a judge without Arena-Hard's labels cannot be weighted: a clear error, not a silent weight of 1
      const bad = await runArena([
        'standings',
        '--judge',
        judge('judgelm'),
        '--weight',
        'arena-hard',
        '--db',
        db,
      ]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(
        /96 of judge "openai\/judgelm-judge"'s 96 pairwise games were not judged with Arena-Hard's labels/,
      );
      const typo = await runArena([
        'standings',
        '--judge',
        judge('arena-hard'),
        '--weight',
        'arenahard',
        '--db',
        db,
      ]);
      expect(typo.code).toBe(1);
      expect(typo.stderr).toMatch(/weight/);
    });

    it('a pairwise-only set in single mode is a clear error', async () => {
      const r = await runArena(
        [
          'run',
          '--judge',
          judge('judgelm'),
          '--base-url',
          srv.url,
          '--models',
          X,
          '--mode',
          'single',
          '--prompts',
          'judgelm',
          '--db',
          db,
        ],
        { env: { OPENAI_API_KEY: 'test' } },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('prompt set "judgelm" has only pairwise schemes');
    });
  },
);
