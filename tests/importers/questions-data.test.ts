// The project's own data in questions/: loads with the importers' parsers, has the shape questions/README.md
// promises, renders in every scheme; reference answers checked by brute force or by running their code.
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { NEED_REF_CATS, PROMPT_SETS, renderPrompt } from '../../src/core/prompts.ts';
import type { Answer, PromptScheme, Question } from '../../src/core/types.ts';
import { parseAnswers, parsePrompts, parseQuestions } from '../../src/importers/formats.ts';
import { mockJudge } from '../../src/judges/mock.ts';
import { REPO_ROOT } from '../support/cli.ts';

const DIR = join(REPO_ROOT, 'questions');
const read = (f: string) => new Uint8Array(readFileSync(f));
const questions: Question[] = parseQuestions(join(DIR, 'arena.jsonl'), read(join(DIR, 'arena.jsonl')));
const prompts: PromptScheme[] = parsePrompts(
  join(DIR, 'judge_prompts.jsonl'),
  read(join(DIR, 'judge_prompts.jsonl')),
);
const turnsById = new Map(questions.map((q) => [q.id, q.turns.length]));
const answerFiles = readdirSync(join(DIR, 'answers'))
  .filter((f) => f.endsWith('.jsonl'))
  .sort();
const answers = new Map<string, Answer[]>(
  answerFiles.map((f) => [
    f.replace(/\.jsonl$/, ''),
    parseAnswers(join(DIR, 'answers', f), read(join(DIR, 'answers', f)), turnsById),
  ]),
);
const q = (id: number) => questions.find((x) => x.id === id)!;
const ref = (id: number) => q(id).reference! as [string, string];
const answerOf = (model: string, id: number) =>
  answers.get(model)!.find((a) => a.questionId === id)!.turns as [string, string];
/** the fenced code block of a reference or answer turn */
const code = (text: string) => /```\w*\n([\s\S]*?)```/.exec(text)?.[1] ?? '';

const CATEGORIES = ['writing', 'roleplay', 'reasoning', 'math', 'coding', 'extraction', 'stem', 'humanities'];
const MODELS = ['arena-drift', 'arena-echo', 'arena-sage', 'arena-swift'];

describe('questions/arena.jsonl', () => {
  it('has 24 two-turn questions, ids 1001–1024, three per MT-Bench category in MT-Bench order', () => {
    expect(questions.map((x) => x.id)).toEqual(Array.from({ length: 24 }, (_, i) => 1001 + i));
    expect(questions.map((x) => x.category)).toEqual(CATEGORIES.flatMap((c) => [c, c, c]));
    for (const x of questions) {
      expect(x.turns, `question ${x.id}`).toHaveLength(2);
      expect(x.turns[0]).not.toBe(x.turns[1]);
    }
  });

  it('carries two reference turns exactly where the judge needs them (math, reasoning, coding)', () => {
    for (const x of questions) {
      if (NEED_REF_CATS.has(x.category))
        expect(
          x.reference?.map((t) => t.trim().length > 0),
          `question ${x.id}`,
        ).toEqual([true, true]);
      else expect(x.reference, `question ${x.id}`).toBeUndefined();
    }
  });

  it.skipIf(!process.env.MTBENCH_DIR)('shares no id with MT-Bench (needs MTBENCH_DIR)', () => {
    const file = join(process.env.MTBENCH_DIR!, 'question.jsonl');
    const mt = parseQuestions(file, read(file)).map((x) => x.id);
    expect(mt.length).toBe(80);
    expect(mt.filter((id) => turnsById.has(id))).toEqual([]);
  });
});

describe('reference answers, checked independently', () => {
  it('1007 (race order): the forced order, with and without "immediately after"', () => {
    const names = ['Ana', 'Ben', 'Cleo', 'Dev', 'Eli'];
    const perms = (xs: string[]): string[][] =>
      xs.length ? xs.flatMap((x) => perms(xs.filter((y) => y !== x)).map((p) => [x, ...p])) : [[]];
    const orders = (immediately: boolean) =>
      perms(names).filter((p) => {
        const at = (n: string) => p.indexOf(n);
        return (
          at('Ben') < at('Dev') &&
          at('Eli') === 4 &&
          at('Dev') < at('Ana') &&
          (immediately ? at('Cleo') === at('Ana') + 1 : at('Cleo') > at('Ana'))
        );
      });
    const strict = orders(true);
    const loose = orders(false);
    expect(strict).toHaveLength(1);
    expect(loose).toEqual(strict); // the weaker condition still forces the same order
    expect(ref(1007)[0]).toMatch(new RegExp(`^${strict[0]![0]} won`));
    expect(ref(1007)[0]).toContain(strict[0]!.join(', '));
    expect(ref(1007)[1]).toMatch(
      new RegExp(`^${strict[0]![2]} finished third\\. The answer does not change`),
    );
  });

  it('1008 (fast clock): the time shown after 30 hours, and when a 12-hour face is right again', () => {
    const gainPerHour = 2;
    const hours = 24 + 6; // Monday noon -> Tuesday 6 pm
    const shown = 18 * 60 + hours * gainPerHour; // minutes after midnight
    const h12 = ((Math.floor(shown / 60) + 11) % 12) + 1;
    expect(ref(1008)[0]).toContain(
      `${h12}:${String(shown % 60).padStart(2, '0')} ${shown >= 12 * 60 ? 'pm' : 'am'}`,
    );
    let h = 1;
    while ((h * gainPerHour) % (12 * 60) !== 0) h++;
    expect(h % 24).toBe(0); // so it is right again at noon
    expect(ref(1008)[1]).toContain(`${h} hours = ${h / 24} days`);
    expect(ref(1008)[1]).toContain('noon');
  });

  it('1009 (truth-tellers and liars): the only consistent assignment for each statement', () => {
    const solve = (says: (mira: boolean, tomas: boolean) => boolean) => {
      const ok: [boolean, boolean][] = [];
      for (const mira of [true, false])
        for (const tomas of [true, false]) if (says(mira, tomas) === mira) ok.push([mira, tomas]);
      return ok;
    };
    const phrase = ([m, t]: [boolean, boolean]) =>
      `Mira ${m ? 'tells the truth' : 'is a liar'} and Tomas ${t ? 'tells the truth' : 'is a liar'}`;
    const one = solve((m, t) => !m || !t); // "at least one of us is a liar"
    const two = solve((m, t) => !m && !t); // "we are both liars"
    expect(one).toHaveLength(1);
    expect(two).toHaveLength(1);
    expect(ref(1009)[0].startsWith(phrase(one[0]!))).toBe(true);
    expect(ref(1009)[1].startsWith(phrase(two[0]!))).toBe(true);
  });

  it('1010 (rectangle): sides from perimeter and area, then the diagonal', () => {
    const sides: [number, number][] = [];
    for (let w = 1; w <= 23; w++)
      for (let l = w; l <= 23; l++) if (2 * (l + w) === 46 && l * w === 120) sides.push([l, w]);
    expect(sides).toHaveLength(1);
    const [l, w] = sides[0]!;
    expect(ref(1010)[0]).toContain(`${l} cm and ${w} cm`);
    const d = Math.sqrt(l * l + w * w);
    expect(Number.isInteger(d)).toBe(true);
    expect(ref(1010)[1]).toContain(`√${l * l + w * w} = ${d} cm`);
  });

  it('1011 (price change): final price, overall change, and the discount that undoes the raise', () => {
    const cents = 8000;
    const raised = (cents * 120) / 100;
    const final = (raised * 75) / 100;
    expect(ref(1011)[0]).toContain(`$${final / 100}`);
    expect(ref(1011)[0]).toContain(`${Math.abs(((final - cents) / cents) * 100)}% decrease`);
    expect(ref(1011)[1]).toContain(
      `${(raised - cents) / 100} / ${raised / 100} = 1/${raised / (raised - cents)}`,
    );
  });

  it('1012 (two dice): P(sum 8), and P(sum 8 | at least one 5)', () => {
    const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
    const frac = (n: number, d: number) => `${n / gcd(n, d)}/${d / gcd(n, d)}`;
    const all: [number, number][] = [];
    for (let a = 1; a <= 6; a++) for (let b = 1; b <= 6; b++) all.push([a, b]);
    const eight = all.filter(([a, b]) => a + b === 8);
    const five = all.filter(([a, b]) => a === 5 || b === 5);
    expect(ref(1012)[0]).toMatch(new RegExp(`^${frac(eight.length, all.length)} `));
    expect(ref(1012)[1]).toMatch(
      new RegExp(`^${frac(five.filter(([a, b]) => a + b === 8).length, five.length)} `),
    );
  });

  it('1014 (JavaScript): chunk and flattenDepth behave, and flattenDepth does not call Array.prototype.flat', () => {
    const fns = runInNewContext(
      `${code(ref(1014)[0])}\n${code(ref(1014)[1])}\n({ chunk, flattenDepth })`,
    ) as {
      chunk: (a: unknown[], n: unknown) => unknown[][];
      flattenDepth: (a: unknown[], d?: number) => unknown[];
    };
    const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown; // values from the VM's realm
    expect(plain(fns.chunk([1, 2, 3, 4, 5], 2))).toEqual([[1, 2], [3, 4], [5]]);
    expect(plain(fns.chunk([], 3))).toEqual([]);
    for (let n = 0; n <= 9; n++) {
      const arr = Array.from({ length: n }, (_, i) => i);
      for (let size = 1; size <= 4; size++) {
        const got = plain(fns.chunk(arr, size)) as number[][];
        expect(got.flat()).toEqual(arr);
        expect(
          got.every((c, i) => (i < got.length - 1 ? c.length === size : c.length >= 1 && c.length <= size)),
        ).toBe(true);
      }
    }
    for (const bad of [0, -1, 1.5, Number.NaN, '2'])
      expect(() => fns.chunk([1], bad), String(bad)).toThrow(/positive integer/);
    const nested = [1, [2, [3, [4, [5]]]], [], [[6]]];
    for (const depth of [0, 1, 2, 3, 4, Infinity])
      expect(plain(fns.flattenDepth(nested, depth))).toEqual(nested.flat(depth));
    expect(plain(fns.flattenDepth(nested))).toEqual(nested.flat());
    expect(code(ref(1014)[1])).not.toMatch(/\.flat\(/);
  });

  it('1015 (SQL): the 2023 totals and the top 3 with order counts, on real SQLite', () => {
    const db = new Database(':memory:');
    db.exec(
      'CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount REAL, created_at TEXT)',
    );
    const rows: [number, number, string][] = [];
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const stamps = [
      '2022-12-31 23:59:59',
      '2023-01-01',
      '2023-01-01 00:00:01',
      '2023-06-15 12:00:00',
      '2023-12-31',
      '2023-12-31 23:30:00',
      '2024-01-01',
    ];
    for (let i = 0; i < 200; i++) rows.push([1 + rnd(9), 1 + rnd(5000) / 100, stamps[rnd(stamps.length)]!]);
    const insert = db.prepare('INSERT INTO orders (customer_id, amount, created_at) VALUES (?, ?, ?)');
    for (const r of rows) insert.run(...r);
    const per = new Map<number, { total: number; n: number }>();
    for (const [c, amount, at] of rows) {
      if (!at.startsWith('2023-')) continue;
      const e = per.get(c) ?? { total: 0, n: 0 };
      per.set(c, { total: e.total + amount, n: e.n + 1 });
    }
    const expected = [...per].map(([c, e]) => ({ c, ...e })).sort((a, b) => b.total - a.total);
    const all = db
      .prepare(code(ref(1015)[0]))
      .raw()
      .all() as [number, number][];
    expect(all.map(([c]) => c)).toEqual(expected.map((e) => e.c));
    all.forEach(([, total], i) => expect(total).toBeCloseTo(expected[i]!.total, 6));
    const top = db
      .prepare(code(ref(1015)[1]))
      .raw()
      .all() as [number, number, number][];
    expect(top.map(([c, , n]) => [c, n])).toEqual(expected.slice(0, 3).map((e) => [e.c, e.n]));
    db.close();
  });

  const python = spawnSync('python3', ['--version']).status === 0;
  it.skipIf(!python)(
    '1013 (Python, needs python3): is_palindrome and longest_palindromic_substring against brute force',
    () => {
      const check = [
        code(ref(1013)[0]),
        code(ref(1013)[1]),
        'import random',
        'assert is_palindrome("A man, a plan, a canal: Panama!") and is_palindrome("") and not is_palindrome("abca")',
        'assert is_palindrome("No \'x\' in Nixon") and not is_palindrome("ab1")',
        'def brute(s): return max((s[i:j] for i in range(len(s) + 1) for j in range(i, len(s) + 1) if s[i:j] == s[i:j][::-1]), key=len)',
        'rng = random.Random(1)',
        'for _ in range(3000):',
        '    s = "".join(rng.choice("abA") for _ in range(rng.randint(0, 12)))',
        '    got = longest_palindromic_substring(s)',
        '    assert got in s and got == got[::-1] and len(got) == len(brute(s)), (s, got)',
        'print("ok")',
      ].join('\n');
      const r = spawnSync('python3', ['-c', check], { encoding: 'utf8', timeout: 60_000 });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe('ok');
    },
  );
});

describe('questions/judge_prompts.jsonl', () => {
  type Two = [string, string];
  const S: { question: string; question2: string; a: Two; b: Two; ref: Two } = {
    question: 'Q-TURN-ONE',
    question2: 'Q-TURN-TWO',
    a: ['A-ANSWER-ONE', 'A-ANSWER-TWO'],
    b: ['B-ANSWER-ONE', 'B-ANSWER-TWO'],
    ref: ['REF-ONE', 'REF-TWO'],
  };
  const kindOf = (p: PromptScheme) => ({
    multi: p.name.endsWith('-multi-turn'),
    ref: p.name.includes('-ref-'),
  });
  const render = (p: PromptScheme, a: string[] = S.a, b: string[] = S.b) => {
    const { multi, ref: withRef } = kindOf(p);
    return renderPrompt({
      scheme: p,
      questionTurns: [S.question, S.question2],
      turn: multi ? 2 : 1,
      answerA: a,
      ...(p.type === 'pairwise' ? { answerB: b } : {}),
      ...(withRef ? { reference: S.ref } : {}),
    });
  };
  const between = (text: string, start: string, end: string) => {
    const i = text.indexOf(start);
    const j = text.indexOf(end, i);
    expect(i, start).toBeGreaterThanOrEqual(0);
    expect(j, end).toBeGreaterThan(i);
    return text.slice(i + start.length, j);
  };

  it('holds exactly the eight schemes of the `arena` prompt set', () => {
    const wanted = Object.values(PROMPT_SETS.arena!).flatMap((set) => Object.values(set));
    expect(prompts.map((p) => p.name).sort()).toEqual([...wanted].sort());
    for (const p of prompts) expect(p.outputFormat).toBe(p.type === 'pairwise' ? '[[A]]' : '[[rating]]');
    expect(
      prompts
        .filter((p) => p.type === 'pairwise')
        .map((p) => p.name)
        .sort(),
    ).toEqual(Object.values(PROMPT_SETS.arena!.pairwise).sort());
  });

  it('pairwise schemes ask for exactly one of [[A]], [[B]], [[C]]; single schemes for a 1–10 [[rating]]', () => {
    for (const p of prompts) {
      const text = p.systemPrompt + p.promptTemplate;
      if (p.type === 'pairwise') {
        for (const v of ['"[[A]]"', '"[[B]]"', '"[[C]]"']) expect(p.systemPrompt, p.name).toContain(v);
        expect(text, p.name).not.toContain('[[rating]]');
      } else {
        expect(p.systemPrompt, p.name).toContain('"[[rating]]"');
        expect(p.systemPrompt, p.name).toContain('Rating: [[5]]');
        expect(p.systemPrompt, p.name).toMatch(/from 1 .*to 10/);
        expect(text, p.name).not.toMatch(/\[\[[ABC]\]\]/);
      }
    }
  });

  it('every scheme renders its game kind using every field it is given, each answer inside its own markers', () => {
    for (const p of prompts) {
      const { multi, ref: withRef } = kindOf(p);
      const { system, user } = render(p);
      expect(system).toBe(p.systemPrompt);
      expect(user, p.name).not.toMatch(/[{}]/); // nothing left unformatted
      const shown = [
        S.question,
        ...S.a.slice(0, multi ? 2 : 1),
        ...(multi ? [S.question2] : []),
        ...(withRef ? S.ref.slice(0, multi ? 2 : 1) : []),
        ...(p.type === 'pairwise' ? S.b.slice(0, multi ? 2 : 1) : []),
      ];
      for (const s of shown) expect(user, `${p.name} shows ${s}`).toContain(s);
      if (!multi)
        for (const s of [S.question2, S.a[1], S.b[1], S.ref[1]])
          expect(user, `${p.name} must not show ${s}`).not.toContain(s);
      if (p.type === 'pairwise') {
        const [start, end] = multi
          ? [
              "<|The Start of Assistant X's Conversation with User|>",
              "<|The End of Assistant X's Conversation with User|>",
            ]
          : ["[The Start of Assistant X's Answer]", "[The End of Assistant X's Answer]"];
        for (const [x, own, other] of [
          ['A', S.a, S.b],
          ['B', S.b, S.a],
        ] as const) {
          const part = between(user, start.replace('X', x), end.replace('X', x));
          expect(part).toContain(own[0]);
          expect(part).not.toContain(other[0]);
          if (multi) expect(part.indexOf(own[0])).toBeLessThan(part.indexOf(own[1]));
        }
        if (multi) expect(p.systemPrompt, p.name).toMatch(/second question/);
      } else {
        const part = multi
          ? between(
              user,
              "<|The Start of Assistant's Conversation with User|>",
              "<|The End of Assistant's Conversation with User|>",
            )
          : between(user, "[The Start of Assistant's Answer]", "[The End of Assistant's Answer]");
        expect(part).toContain(S.a[multi ? 1 : 0]);
      }
      if (withRef) expect(user.indexOf(S.ref[0]), p.name).toBeLessThan(user.indexOf(S.a[0]));
    }
  });

  it('mock/longer finds the answers by their markers: it picks the longer answer in either order', async () => {
    const judge = mockJudge('longer');
    const long = ['a much longer and more detailed answer', 'a much longer and more detailed second answer'];
    const short = ['brief', 'brief too'];
    for (const p of prompts.filter((x) => x.type === 'pairwise')) {
      for (const [a, b, want] of [
        [long, short, '[[A]]'],
        [short, long, '[[B]]'],
      ] as const) {
        const { system, user } = render(p, [...a], [...b]);
        const reply = await judge.complete({ system, user, temperature: 0, maxTokens: 64 });
        expect(reply.text, p.name).toContain(want);
      }
    }
  });
});

describe('questions/answers', () => {
  it('has the four fictional models, each answering every question in both turns, each file under 60 KB', () => {
    expect([...answers.keys()]).toEqual(MODELS);
    for (const f of answerFiles) {
      expect(statSync(join(DIR, 'answers', f)).size, f).toBeLessThan(60 * 1024);
      const model = f.replace(/\.jsonl$/, '');
      for (const line of readFileSync(join(DIR, 'answers', f), 'utf8')
        .trim()
        .split('\n'))
        expect((JSON.parse(line) as { model_id: string }).model_id).toBe(model);
      const got = answers.get(model)!;
      expect(got.map((a) => a.questionId)).toEqual(questions.map((x) => x.id));
      for (const a of got)
        expect(
          a.turns.every((t) => t.trim().length > 0),
          `${model} ${a.questionId}`,
        ).toBe(true);
    }
  });

  it('the quality differences are real: sage and swift get the checked results, drift and echo mostly do not', () => {
    // the key result of each turn, taken from the (independently checked) reference answers above
    const keys: Record<number, [RegExp, RegExp]> = {
      1007: [/^[^.?]*\bBen\b/, /^[^.?]*\bAna\b/], // the first sentence names the winner / the third
      1008: [/7:00 pm/, /15 days/],
      1010: [/15 cm and 8 cm/, /17 cm/],
      1011: [/\$72\b/, /16 ?\/ ?96/],
      1012: [/5\/36/, /2\/11/],
    };
    const hits = (model: string) =>
      Object.entries(keys).reduce(
        (n, [id, [k1, k2]]) =>
          n +
          Number(k1.test(answerOf(model, Number(id))[0])) +
          Number(k2.test(answerOf(model, Number(id))[1])),
        0,
      );
    for (const [id, [k1, k2]] of Object.entries(keys)) {
      expect(ref(Number(id))[0]).toMatch(k1);
      expect(ref(Number(id))[1]).toMatch(k2);
    }
    expect(hits('arena-sage')).toBe(10);
    expect(hits('arena-swift')).toBe(10);
    expect(hits('arena-drift')).toBeLessThanOrEqual(2);
    expect(hits('arena-echo')).toBeLessThanOrEqual(2);
    // swift is brief, sage thorough, echo weakest
    const size = (m: string) => answers.get(m)!.reduce((n, a) => n + a.turns.join('').length, 0);
    expect(size('arena-sage')).toBeGreaterThan(size('arena-swift'));
    expect(size('arena-swift')).toBeGreaterThan(size('arena-echo'));
  });

  it('exactly one answer (arena-drift) carries script-like HTML, for the site to render safely', () => {
    const withScript = [...answers.values()].flat().filter((a) => a.turns.some((t) => /<script\b/i.test(t)));
    expect(withScript.map((a) => `${a.model}/${a.questionId}`)).toEqual(['arena-drift/1014']);
    expect(withScript[0]!.turns[0]).toContain('<script>alert(1)</script>');
  });
});
