import {
  PARSER_VERSIONS,
  RECORDED_PARSER,
  parserFromVersion,
  type ParserMode,
} from '../core/verdict/parse.ts';
import { verdictOf } from '../core/verdict/of-reply.ts';
import { outputFormatOfVersion } from '../core/schemes/index.ts';
import type { Game, GameVerdict } from '../core/types.ts';
import type { Store } from '../storage/store.ts';

/** A parser mode, or `recorded`: the verdicts the imported judgment files recorded, restored. */
export type ReparseMode = ParserMode | typeof RECORDED_PARSER;

export interface ReparseResult {
  parser: string;
  games: number;
  changed: number;
  errors: number;
  /** `--parser recorded`: games with no recorded verdict (played here), left as they are */
  unrecorded: number;
  /** error verdicts among these games as stored before this reparse, and as each parser reads them */
  errorsByParser: { stored: number } & Record<ParserMode, number>;
  /** how many of these games each stored parser version had produced (e.g. recorded, fastchat@1) */
  storedParsers: Record<string, number>;
  changes: {
    id: string;
    questionId: number;
    turn: number;
    order: string;
    from: GameVerdict;
    to: GameVerdict;
  }[];
}

/** Is this game's verdict one of ours ([[A]]/[[B]]/[[C]] or [[rating]]), or a recorded one? Score-based samples (calibration) are not. */
function reparsable(parser: string): boolean {
  if (parser === RECORDED_PARSER) return true;
  try {
    parserFromVersion(parser);
    return true;
  } catch {
    return false;
  }
}

/** A stored game's verdict under a parser mode; a scheme with its own output format (JudgeLM, Arena-Hard, ...) is always read by that format's parser. */
function reread(g: Game, mode: ParserMode): GameVerdict {
  return verdictOf(g, g.reply, { mode, format: outputFormatOfVersion(g.parser) }).verdict;
}

/**
 * Re-parse stored raw replies with a parser version; stores the new verdicts unless dryRun. Verdicts from another
 * kind of parser (calibrated score samples) are left alone.
 */
export async function reparse(
  store: Store,
  o: { parser: ReparseMode; judge?: string; dryRun?: boolean },
): Promise<ReparseResult> {
  // games on labelled sets too (arena import pairs / run --set): a parser fix applies to every stored reply;
  // games of a scheme with its own output format (JudgeLM, Arena-Hard, LLMBar, ...) are re-read by that format's current parser
  const games = (
    await store.games.list({ ...(o.judge !== undefined ? { judge: o.judge } : {}), withSets: true })
  ).filter((g) => reparsable(g.parser) || outputFormatOfVersion(g.parser));
  const mode = o.parser;
  const version = mode === RECORDED_PARSER ? RECORDED_PARSER : PARSER_VERSIONS[mode];
  const res: ReparseResult = {
    parser: version,
    games: games.length,
    changed: 0,
    errors: 0,
    unrecorded: 0,
    errorsByParser: { stored: 0, last: 0, fastchat: 0, lenient: 0 },
    storedParsers: {},
    changes: [],
  };
  const updates: { id: string; verdict: GameVerdict; parser: string; recordedVerdict?: GameVerdict }[] = [];
  for (const g of games) {
    res.storedParsers[g.parser] = (res.storedParsers[g.parser] ?? 0) + 1;
    if (g.verdict === 'error') res.errorsByParser.stored++;
    for (const mode of Object.keys(PARSER_VERSIONS) as ParserMode[])
      if (reread(g, mode) === 'error') res.errorsByParser[mode]++;
    // a verdict kept as recorded before recorded verdicts had their own column: keep it there first
    const recorded = g.recordedVerdict ?? (g.parser === RECORDED_PARSER ? g.verdict : undefined);
    let verdict: GameVerdict;
    let parser: string;
    if (mode === RECORDED_PARSER) {
      if (recorded === undefined) {
        res.unrecorded++;
        continue;
      }
      verdict = recorded;
      // as the import stored it: 'fastchat@1' where FastChat's parser reads the recorded verdict from the text
      parser = reread(g, 'fastchat') === recorded ? PARSER_VERSIONS.fastchat : RECORDED_PARSER;
    } else {
      verdict = reread(g, mode);
      parser = outputFormatOfVersion(g.parser)?.version ?? version;
    }
    if (verdict === 'error') res.errors++;
    if (verdict !== g.verdict) {
      res.changed++;
      res.changes.push({
        id: g.id,
        questionId: g.match.questionId,
        turn: g.match.turn,
        order: g.order,
        from: g.verdict,
        to: verdict,
      });
    }
    if (verdict !== g.verdict || g.parser !== parser)
      updates.push({
        id: g.id,
        verdict,
        parser,
        ...(recorded !== undefined && g.recordedVerdict == null ? { recordedVerdict: recorded } : {}),
      });
  }
  if (!o.dryRun) await store.games.updateVerdicts(updates);
  return res;
}
