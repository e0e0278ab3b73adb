// `arena import pairs DIR`: labelled pair sets in LLMBar's layout: each `<set>/dataset.json` a set (gold labels
// as votes of judge `gold`), each `<set>/evaluators/<LLM>/<strategy>/result.json` the games of that judge.
// Everything is parsed and checked first and written in one atomic store operation.
import { GOLD, OUTPUT_1, OUTPUT_2 } from '../core/constants.ts';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { LLMBAR_VANILLA } from '../core/llmbar.ts';
import { renderPrompt } from '../core/prompts.ts';
import {
  ArenaError,
  type Answer,
  type Game,
  type GameSpec,
  type Question,
  type Verdict,
  type Vote,
} from '../core/types.ts';
import { gameId } from '../core/plan.ts';
import type { ImportBundle, ImportCounts, Store } from '../storage/store.ts';
import { decodeUtf8, fail } from './formats/located.ts';
import { jsonSpans } from './json-spans.ts';
import { newGames } from './import.ts';
import { readImportFile } from './lines.ts';

/** LLMBar's final comparison call: greedy, at most 50 new tokens (its evaluators/config/*.json). */
const LLMBAR_SETTINGS = { temperature: 0, maxTokens: 50 } as const;
const LLMBAR_RECORDED_PARSER = 'llmbar-recorded';

/** Parse a JSON array and find the line each top-level element starts on (for located errors). */
export function parseJsonArray(file: string, bytes: Uint8Array): { line: number; value: unknown }[] {
  const text = decodeUtf8(file, bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    fail(file, undefined, undefined, `not valid JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(value)) fail(file, 1, undefined, 'expected a JSON array of items');
  const spans = jsonSpans(text);
  return value.map((v, i) => ({ line: spans.get(`[${i}]`)?.line ?? 1, value: v as unknown }));
}

/** A labelled item as LLMBar's dataset.json has it. */
export interface PairItem {
  line: number;
  input: string;
  output1: string;
  output2: string;
  label: 1 | 2;
}

function text(file: string, line: number, item: number, o: Record<string, unknown>, field: string): string {
  const v = o[field];
  if (typeof v !== 'string')
    fail(
      file,
      line,
      field,
      `item ${item}: expected a string, got ${v === undefined ? 'nothing' : JSON.stringify(v)}`,
    );
  return v;
}

/** dataset.json: an array of {input, output_1, output_2, label}; label 1 or 2, as a number or a string. */
export function parsePairDataset(file: string, bytes: Uint8Array): PairItem[] {
  return parseJsonArray(file, bytes).map(({ line, value }, i) => {
    if (!value || typeof value !== 'object' || Array.isArray(value))
      fail(file, line, undefined, `item ${i}: expected an object`);
    const o = value as Record<string, unknown>;
    const label = o.label;
    if (label !== 1 && label !== 2 && label !== '1' && label !== '2')
      fail(
        file,
        line,
        'label',
        `item ${i}: expected 1 or 2 (which output is better, as a number or a string), got ${JSON.stringify(label ?? null)}`,
      );
    return {
      line,
      input: text(file, line, i, o, 'input'),
      output1: text(file, line, i, o, 'output_1'),
      output2: text(file, line, i, o, 'output_2'),
      label: Number(label) as 1 | 2,
    };
  });
}

/** One item's two recorded games from result.json (`swap = True` is already mapped back). */
interface PairResult {
  line: number;
  ab: { reply: string; verdict: Verdict };
  ba: { reply: string; verdict: Verdict };
}

function recordedGame(
  file: string,
  line: number,
  item: number,
  last: Record<string, unknown>,
  key: string,
): { reply: string; verdict: Verdict } {
  const g = last[key];
  if (!g || typeof g !== 'object') fail(file, line, `results[-1]["${key}"]`, `item ${item}: missing`);
  const r = g as Record<string, unknown>;
  const completion = r.completion;
  const reply =
    Array.isArray(completion) && typeof completion[0] === 'string'
      ? completion[0]
      : typeof completion === 'string'
        ? completion
        : undefined;
  if (reply === undefined)
    fail(file, line, `results[-1]["${key}"].completion`, `item ${item}: expected [text, finish_reason]`);
  const w = r.winner;
  // LLMBar's parser gives "1", "2" or None; anything but 1 or 2 is an unparsed verdict
  const verdict: Verdict = w === '1' || w === 1 ? 'model_1' : w === '2' || w === 2 ? 'model_2' : 'error';
  return { reply, verdict };
}

/** result.json: the dataset's items, each with `results`, whose last element holds both orders' games. */
function parsePairResults(
  file: string,
  bytes: Uint8Array,
  dataset: PairItem[],
  datasetFile: string,
): PairResult[] {
  const rows = parseJsonArray(file, bytes);
  if (rows.length !== dataset.length)
    fail(
      file,
      1,
      undefined,
      `${rows.length} item(s), but ${datasetFile} has ${dataset.length}: a result.json must judge every item of its dataset, in order`,
    );
  return rows.map(({ line, value }, i) => {
    if (!value || typeof value !== 'object' || Array.isArray(value))
      fail(file, line, undefined, `item ${i}: expected an object`);
    const o = value as Record<string, unknown>;
    const d = dataset[i]!;
    for (const [field, want] of [
      ['input', d.input],
      ['output_1', d.output1],
      ['output_2', d.output2],
    ] as const)
      if (o[field] !== undefined && o[field] !== want)
        fail(
          file,
          line,
          field,
          `item ${i} differs from item ${i} of ${datasetFile} (line ${d.line}): results must be in the dataset's order`,
        );
    const results = o.results;
    if (!Array.isArray(results) || !results.length)
      fail(file, line, 'results', `item ${i}: expected a non-empty array`);
    const last = results[results.length - 1];
    if (!last || typeof last !== 'object')
      fail(file, line, 'results', `item ${i}: the last element must hold "swap = False" and "swap = True"`);
    const l = last as Record<string, unknown>;
    return {
      line,
      ab: recordedGame(file, line, i, l, 'swap = False'),
      ba: recordedGame(file, line, i, l, 'swap = True'),
    };
  });
}

/** A labelled item's question id: a hash of set and position, far above any MT-Bench id (1e15 + 48 bits). */
export function pairQuestionId(set: string, index: number): number {
  const h = createHash('sha256').update(`${set}\u0000${index}`).digest();
  return 1e15 + h.readUIntBE(0, 6);
}

/** Every dataset.json below dir, as [set name, its directory]; `evaluators` folders are not searched. */
function findPairSets(dir: string): [string, string][] {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new ArenaError(`${dir}: not a directory`, { file: dir });
  const out: [string, string][] = [];
  const walk = (d: string) => {
    if (existsSync(join(d, 'dataset.json')))
      out.push([relative(dir, d).split(sep).join('/') || basename(dir), d]);
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1)))
      if (e.isDirectory() && e.name !== 'evaluators' && !e.name.startsWith('.')) walk(join(d, e.name));
  };
  walk(dir);
  if (!out.length)
    throw new ArenaError(
      `${dir}: no <set>/dataset.json below it (LLMBar's layout: Natural/dataset.json, Adversarial/Neighbor/dataset.json, ...)`,
      { file: dir },
    );
  return out;
}

/** Every `evaluators/<LLM>/<strategy>/result.json` of a set, as [judge, file]. */
function findResults(setDir: string): [string, string][] {
  const ev = join(setDir, 'evaluators');
  if (!existsSync(ev)) return [];
  const out: [string, string][] = [];
  // a result.json one level too high would name no judge: say where it belongs rather than skip it
  const misplaced = (f: string) =>
    new ArenaError(
      `${f}: a result.json belongs in evaluators/<LLM>/<strategy>/result.json (the judge is named <LLM>/<strategy>, e.g. GPT-4/Vanilla)`,
      { file: f },
    );
  if (existsSync(join(ev, 'result.json'))) throw misplaced(join(ev, 'result.json'));
  for (const llm of readdirSync(ev).sort())
    if (statSync(join(ev, llm)).isDirectory()) {
      if (existsSync(join(ev, llm, 'result.json'))) throw misplaced(join(ev, llm, 'result.json'));
      for (const strategy of readdirSync(join(ev, llm)).sort()) {
        const f = join(ev, llm, strategy, 'result.json');
        if (existsSync(f)) out.push([`${llm}/${strategy}`, f]);
      }
    }
  return out;
}

export interface PairImportSummary {
  sets: { set: string; items: number; judges: string[] }[];
  counts: ImportCounts;
  /** games of the files that were already stored (or repeated), left as they are and not in counts.games */
  gamesAlreadyStored: number;
}

/** Read every set and result below dir, check everything, then write it all at once. */
export async function importPairs(store: Store, dir: string): Promise<PairImportSummary> {
  const tournamentIds = new Set((await store.catalog.questions()).map((q) => q.id));
  const storedSets = await store.catalog.pairSets();
  const questions: Question[] = [];
  const answers: Answer[] = [];
  const votes: NonNullable<ImportBundle['votes']> = [];
  const games: Game[] = [];
  const sets: PairImportSummary['sets'] = [];
  const now = Date.now();
  for (const [set, setDir] of findPairSets(dir)) {
    const dsFile = join(setDir, 'dataset.json');
    const items = parsePairDataset(dsFile, readImportFile(dsFile));
    const ids = items.map((_, i) => pairQuestionId(set, i));
    // the same set imported from another directory level (judge_sets, then judge_sets/llmbar) would be stored
    // twice under two names, and every judge's accuracy would count each item twice
    for (const other of storedSets) {
      if (
        other.set === set ||
        !(other.set.endsWith(`/${set}`) || set.endsWith(`/${other.set}`)) ||
        other.items !== items.length
      )
        continue;
      const firstId = pairQuestionId(other.set, 0);
      const first = (await store.catalog.questions({ set: other.set })).find((q) => q.id === firstId);
      if (first?.turns[0] === items[0]?.input)
        fail(
          dsFile,
          items[0]!.line,
          undefined,
          `this set is already stored as "${other.set}" (imported from another directory level); import the same directory as before, or the items would be counted twice`,
        );
    }
    for (const [i, id] of ids.entries())
      if (tournamentIds.has(id))
        fail(dsFile, items[i]!.line, undefined, `item ${i}: its id ${id} is taken by a tournament question`);
    const goldVotes: (Vote & { line: number })[] = [];
    items.forEach((it, i) => {
      const id = ids[i]!;
      questions.push({ id, category: set, turns: [it.input], set });
      answers.push(
        { model: OUTPUT_1, questionId: id, turns: [it.output1] },
        { model: OUTPUT_2, questionId: id, turns: [it.output2] },
      );
      goldVotes.push({
        judge: GOLD,
        voter: basename(dir),
        questionId: id,
        turn: 1,
        model1: OUTPUT_1,
        model2: OUTPUT_2,
        winner: it.label === 1 ? 'model_1' : 'model_2',
        // the vote's key within its file: the item's position, not its line (compact JSON has every item on line 1)
        line: i + 1,
      });
    });
    votes.push({ source: `pairs:${set}/dataset.json`, items: goldVotes });
    const judges: string[] = [];
    for (const [judge, file] of findResults(setDir)) {
      const results = parsePairResults(file, readImportFile(file), items, dsFile);
      const strategy = judge.split('/')[1]!;
      results.forEach((r, i) => {
        const it = items[i]!;
        const match = { questionId: ids[i]!, category: set, turn: 1, model1: OUTPUT_1, model2: OUTPUT_2 };
        for (const [order, g] of [
          ['AB', r.ab],
          ['BA', r.ba],
        ] as const) {
          // LLMBar kept no prompts; its Vanilla prompt is known (our llmbar-vanilla scheme renders the same text)
          const shown = order === 'AB' ? [it.output1, it.output2] : [it.output2, it.output1];
          const p =
            strategy === 'Vanilla'
              ? renderPrompt({
                  scheme: LLMBAR_VANILLA,
                  questionTurns: [it.input],
                  turn: 1,
                  answerA: [shown[0]!],
                  answerB: [shown[1]!],
                })
              : { system: '', user: '' };
          const spec: GameSpec = {
            match,
            order,
            promptName: `llmbar/${strategy}`,
            systemPrompt: p.system,
            userPrompt: p.user,
          };
          games.push({
            ...spec,
            id: gameId(judge, LLMBAR_SETTINGS, spec),
            judge,
            judgeSettings: { ...LLMBAR_SETTINGS },
            reply: g.reply,
            verdict: g.verdict,
            parser: LLMBAR_RECORDED_PARSER,
            createdAt: now,
            runId: null,
            source: `llmbar:${set}/${judge}`,
          });
        }
      });
      judges.push(judge);
    }
    sets.push({ set, items: items.length, judges });
  }
  // games already stored (importing the same directory again) are left as they are and not counted
  const { fresh, known } = await newGames(store, games);
  const counts = await store.importBundle({
    questions: { source: `pairs:${basename(dir)}`, items: questions },
    answers: [{ source: `pairs:${basename(dir)}`, items: answers }],
    votes,
    games: fresh,
  });
  return { sets, counts, gamesAlreadyStored: known };
}
