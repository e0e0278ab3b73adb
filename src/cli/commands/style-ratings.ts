// `arena ratings --style`: the style-controlled ratings and coefficients, as a table or JSON.
import { WEIGHTINGS } from '../../core/schemes/weighting.ts';
import * as figures from '../../core/format.ts';
import { int, list, num, oneOf, UsageError } from '../format.ts';
import { print, printTable, printJson, withStore } from '../shared.ts';
import { resolveJudge } from '../judge-choice.ts';
import { noResults } from './results.ts';

/** `arena ratings --style`: Bradley–Terry ratings controlled for answer length and markdown, with coefficients. */
export async function printStyleRatings(
  o: Record<'db' | 'style' | 'reg' | 'rounds' | 'intervals' | 'level' | 'seed', string> & {
    judge?: string | undefined;
    method: 'bt' | 'elo';
    weight: (typeof WEIGHTINGS)[number];
    prior: number;
    turn: number | undefined;
    json: boolean;
  },
): Promise<void> {
  const groups = (list(o.style) ?? []).map((g) => oneOf(g, 'style', ['length', 'markdown'] as const)!);
  if (!groups.length) throw new UsageError('--style expects length, markdown or length,markdown');
  if (o.method !== 'bt')
    throw new UsageError('--style controls Bradley–Terry ratings: use it with --method bt');
  const reg = num(o.reg, 'reg')!;
  const rounds = int(o.rounds, 'rounds')!;
  const intervals = oneOf(o.intervals, 'intervals', ['bootstrap', 'sandwich'] as const)!;
  const level = num(o.level, 'level')!;
  const { styleReport } = await import('../../reports/style.ts');
  if (o.weight !== 'none' || o.prior)
    throw new UsageError('--style fits its own unweighted model: drop --weight and --prior');
  await withStore(o.db, { mustExist: true }, async (store) => {
    const judge = await resolveJudge(store, o.judge);
    const r = await styleReport(store, judge, groups, {
      reg,
      rounds,
      intervals,
      level,
      seed: int(o.seed, 'seed')!,
      ...(o.turn !== undefined ? { turn: o.turn } : {}),
    });
    if (!r.rows.length) return await noResults(store, o.db, judge, 'pairwise', o.json);
    if (o.json) return printJson(r);
    const lvl = `${Math.round(level * 100)}%`;
    const f1 = figures.rating;
    printTable(r.rows, (x) => ({
      'rank (UB)': x.rank ?? '–',
      model: x.model,
      'style-controlled': f1(x.rating),
      [`${lvl} lo`]: f1(x.lo),
      [`${lvl} hi`]: f1(x.hi),
      'raw rank (UB)': x.rawRank ?? '–',
      raw: f1(x.rawRating),
      'raw lo': f1(x.rawLo),
      'raw hi': f1(x.rawHi),
    }));
    print(
      `\nstyle coefficients (log-odds of winning per standard deviation of the normalised difference (a − b)/(a + b + 1)):`,
    );
    printTable(r.features, (f) => ({
      feature: f.feature,
      coefficient: figures.kappa(f.coefficient),
      'SE (clustered)': figures.kappa(f.se),
      [`${lvl} lo`]: figures.kappa(f.lo),
      [`${lvl} hi`]: figures.kappa(f.hi),
    }));
    if (r.constant.length)
      print(`left out (the same for every battle here, so no coefficient): ${r.constant.join(', ')}`);
    for (const x of r.notEstimableFeatures)
      print(`${x.feature}: not estimable, ${x.reason}; left out of the style fit`);
    for (const x of r.notEstimable) print(`${x.model}: ${x.note}; its battles are left out of the style fit`);
    print(
      `\n${r.battles} battles${r.missingAnswers ? ` (${r.missingAnswers} left out: answers not in the database)` : ''}; L2 ${reg}; ${r.intervalsWithheld ? `no intervals or Rank (UB): ${r.intervalsWithheld.reason}` : intervals === 'sandwich' ? `${lvl} sandwich intervals (clustered by question, t with questions − 1 degrees of freedom)` : `${lvl} percentile intervals, questions resampled, ${rounds} rounds, seed ${r.seed}`}; length in characters, markdown counted outside code blocks`,
    );
  });
}
