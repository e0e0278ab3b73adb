// What each stored report declares it reads (src/reports/site/reads.ts) against what computing it reads, through a
// recorder over the Store; an undeclared read fails, as it would leave the report stale. Over the site's fixture,
// with a checkpoint series and a judge named like the study's added so every view computes.
import { AsyncLocalStorage } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTournament } from '../../src/engine/run.ts';
import { mockJudge } from '../../src/judges/mock.ts';
import { reportSteps } from '../../src/reports/site/build.ts';
import type { Memo } from '../../src/reports/site/catalog.ts';
import { allReads, judgeReads } from '../../src/reports/site/reads.ts';
import { SiteData } from '../../src/reports/site/site-data.ts';
import type { ReportReads } from '../../src/storage/report-store.ts';
import type { Store } from '../../src/storage/store.ts';
import { buildFixture, LLMBAR_DIR, type Fixture } from '../web/fixture.ts';

/** What one Store call reads in the digest's terms: judges' games and votes, and tables. */
interface Need {
  call: string;
  judges: 'all' | string[];
  tables: string[];
  /** a read no part of the digest covers */
  uncovered?: true;
}

/**
 * The Store reads the digest covers (src/storage/drizzle/reports.ts), in its terms; every other call is
 * uncovered. The labelled-set items (`pairSets`) are in every report's digest: they are not listed.
 */
function needOf(group: string, method: string, args: unknown[]): Omit<Need, 'call'> {
  const judge = (j: unknown) => (typeof j === 'string' ? [j] : ('all' as const));
  switch (`${group}.${method}`) {
    case 'games.list':
    case 'games.facts':
      return { judges: judge((args[0] as { judge?: string } | undefined)?.judge), tables: [] };
    case 'games.judges':
    case 'catalog.pairSets':
      return { judges: 'all', tables: [] };
    case 'votes.list':
      return { judges: judge(args[0]), tables: [] };
    case 'catalog.questions':
      return { judges: [], tables: ['questions'] };
    case 'catalog.answers':
    case 'catalog.models':
      return { judges: [], tables: ['answers'] };
    case 'checkpoints.list':
      return { judges: [], tables: ['checkpoints'] };
    default:
      return { judges: [], tables: [], uncovered: true };
  }
}

/** The Store calls made while computing one memoized value (its nested values' calls merged in). */
class Frame {
  readonly needs: Need[] = [];
  merge(f: Frame): void {
    this.needs.push(...f.needs);
  }
}

const frames = new AsyncLocalStorage<Frame>();

/** `store`, each call of its groups' methods recorded in the frame of the value being computed. */
function recording(store: Store): Store {
  const groups = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'object' || value === null || name === 'reports') return value;
      if (!groups.has(name))
        groups.set(
          name,
          new Proxy(value, {
            get(g, method, r) {
              const f = Reflect.get(g, method, r) as unknown;
              if (typeof f !== 'function') return f;
              return (...args: unknown[]) => {
                const need = needOf(String(name), String(method), args);
                frames.getStore()?.needs.push({ call: `${String(name)}.${String(method)}`, ...need });
                return (f as (...a: unknown[]) => unknown).apply(g, args);
              };
            },
          }),
        );
      return groups.get(name);
    },
  });
}

/** What a declaration misses of one call (empty: covered). */
function missing(reads: ReportReads, n: Need): string[] {
  if (n.uncovered) return [`${n.call} (no digest covers it)`];
  const out = n.tables.filter((t) => !(reads.tables as string[]).includes(t)).map((t) => `${n.call}: ${t}`);
  if (reads.judges === 'all') return out;
  if (n.judges === 'all') return [...out, `${n.call}: every judge`];
  return [...out, ...n.judges.filter((j) => !reads.judges.includes(j)).map((j) => `${n.call}: judge ${j}`)];
}

/**
 * A memo computing each value once in its own frame, merged into the asker's, so a report's frame holds every
 * read its value needed however cached; each report is checked against its declaration once computed.
 */
class CheckingMemo implements Memo {
  private readonly entries = new Map<string, { p: Promise<unknown>; frame: Frame }>();
  /** report key -> what its declaration misses */
  readonly checked = new Map<string, string[]>();

  get<T>(key: string, compute: () => Promise<T>, reads?: ReportReads): Promise<T> {
    let e = this.entries.get(key);
    if (!e) {
      const frame = new Frame();
      const p = frames.run(frame, compute);
      e = { p, frame };
      this.entries.set(key, e);
      if (reads)
        void p.then(() => this.checked.set(key, [...new Set(frame.needs.flatMap((n) => missing(reads, n)))]));
    }
    const asker = frames.getStore();
    const { frame } = e;
    return e.p.then((v) => {
      asker?.merge(frame);
      return v as T;
    });
  }
}

describe('what each stored report reads', () => {
  let fx: Fixture;

  beforeAll(async () => {
    fx = await buildFixture();
    // a judge the home page's comparison pairs with GPT-4, and a checkpoint series with a baseline
    await runTournament({
      store: fx.store,
      judge: { ...mockJudge('longer'), id: 'mock/llama-2-70b' },
      mode: 'pairwise-all',
      models: ['gpt-4', 'claude-v1', 'vicuna-13b-v1.2'],
      questionIds: [81, 82, 101],
      concurrency: 2,
    });
    for (const [name, step, model] of [
      ['a', 1, 'vicuna-13b-v1.2'],
      ['b', 2, 'claude-v1'],
    ] as const)
      await fx.store.checkpoints.save({
        series: 'ft',
        name,
        step,
        model,
        baseline: 'gpt-4',
        generation: { kind: 'imported', file: `${name}.jsonl` },
      });
  }, 300_000);
  afterAll(async () => fx?.store.close());

  it('every report of a build reads only what it declares', async () => {
    const memo = new CheckingMemo();
    const data = new SiteData(recording(fx.store), memo, { bootstrapRounds: 2 });
    for (const [, run] of await reportSteps(data)) await run();
    const views = new Set([...memo.checked.keys()].map((k) => k.split(':')[0]));
    expect([...views].sort()).toEqual(
      [
        'accuracy',
        'agreement',
        'annotatorVotes',
        'bias',
        'checkpoints',
        'consistency',
        'duel',
        'health',
        'judgeBoard',
        'leaderboard',
        'matrix',
        'model',
        'single',
        'standings',
        'style',
        'variants',
      ].sort(),
    );
    expect(memo.checked.size).toBeGreaterThan(100);
    const wrong = [...memo.checked].filter(([, m]) => m.length);
    expect(Object.fromEntries(wrong)).toEqual({});
    // the data the fixture holds reaches the reads that depend on it
    if (LLMBAR_DIR) expect((await data.judges.accuracy()).length).toBeGreaterThan(0);
    expect((await data.checkpoints.series())[0]!.rows.length).toBeGreaterThan(0);
  }, 300_000);

  it('the check fails a read outside the declaration, nested reports and cached values included', async () => {
    const memo = new CheckingMemo();
    const store = recording(fx.store);
    const answers = () => memo.get('answers', () => store.catalog.answers());
    await memo.get('x:answers', answers, judgeReads('gpt-4'));
    await memo.get('y:inner', () => store.games.list({ judge: 'gpt-4' }), judgeReads('gpt-4', 'answers'));
    // the cached inner report and the cached answers: their reads count for the outer report too
    await memo.get(
      'z:outer',
      async () => [await memo.get('y:inner', async () => []), await answers()],
      judgeReads('gpt-4'),
    );
    await memo.get('w:other', () => store.votes.list('human'), judgeReads('gpt-4'));
    await memo.get('v:runs', () => store.runs.list(), allReads('answers', 'questions', 'checkpoints'));
    expect(Object.fromEntries(memo.checked)).toEqual({
      'x:answers': ['catalog.answers: answers'],
      'y:inner': [],
      'z:outer': ['catalog.answers: answers'],
      'w:other': ['votes.list: judge human'],
      'v:runs': ['runs.list (no digest covers it)'],
    });
  });
});
