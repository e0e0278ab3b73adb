// Bench: Bradley–Terry with 1,000 bootstrap rounds on 1,000,000 battles among 100 models, against the
// reference (FastChat's compute_bootstrap_bt: scipy L-BFGS refit per round on multinomially resampled
// outcome counts, bench/reference/bt_bootstrap.py) on the same battles, in the same run.
//
//   node --import tsx bench/bt-bootstrap.ts [--battles 1000000] [--models 100] [--questions 500] [--rounds 1000]
//     [--reference-rounds N] [--style-rounds 10] [--no-reference]
//
// Prints measured figures only; there is no pass/fail here. Goals: the game-level bootstrap >= 10x faster than the
// reference and under 5 s; the question-cluster bootstrap (the default unit, and the costlier one: each battle is
// tagged with one of --questions questions) also >= 10x the reference's game-level bootstrap, in the same run; and
// style-controlled BT (length + markdown features, synthetic per-answer counts) with its clustered sandwich, timed
// without and with --style-rounds of its question bootstrap (scaled to --rounds), against the same reference time.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { battleTable } from '../src/core/stats/battle-table.ts';
import { bootstrapRatingSamples } from '../src/core/stats/rating-bootstrap.ts';
import { columnIntervals } from '../src/core/stats/bootstrap.ts';
import { normal, seededRng } from '../src/core/stats/random.ts';
import { fitBradleyTerry, type Battle } from '../src/core/ratings.ts';
import { styleControl, type StyleBattle, type StyleCounts } from '../src/core/stats/style.ts';

const arg = (name: string, def: number) => {
  const k = process.argv.indexOf(`--${name}`);
  return k < 0 ? def : Number(process.argv[k + 1]);
};
const N = arg('battles', 1_000_000);
const M = arg('models', 100);
const ROUNDS = arg('rounds', 1000);
const Q = arg('questions', 500);
const REF_ROUNDS = arg('reference-rounds', ROUNDS);
const STYLE_ROUNDS = arg('style-rounds', 10);
const reference = !process.argv.includes('--no-reference');

const secs = (t0: number) => (performance.now() - t0) / 1000;
/** the reference's bootstrap CPU time scaled to ROUNDS */
const refCpu0 = (out: { seconds: { bootstrapCpu: number } }) =>
  (out.seconds.bootstrapCpu / REF_ROUNDS) * ROUNDS;

// battles from known strengths: uniform random pairs, 10% ties, otherwise BT with base 10, scale 400
const rng = seededRng(42);
const theta = Array.from({ length: M }, () => 0.5 * normal(rng));
const names = theta.map((_, k) => `m${k}`);
const a = new Int32Array(N);
const b = new Int32Array(N);
const w = new Int8Array(N); // 2: a won, 1: tie, 0: b won (FastChat's coding)
for (let k = 0; k < N; k++) {
  const i = Math.floor(rng() * M);
  let j = Math.floor(rng() * (M - 1));
  if (j >= i) j++;
  a[k] = i;
  b[k] = j;
  w[k] = rng() < 0.1 ? 1 : rng() < 1 / (1 + 10 ** (theta[j]! - theta[i]!)) ? 2 : 0;
}
const battles: Battle[] = Array.from({ length: N }, (_, k) => ({
  a: names[a[k]!]!,
  b: names[b[k]!]!,
  score: (w[k]! / 2) as 0 | 0.5 | 1,
}));
// the question each battle was played on (uniform, as Arena-Hard's 500 prompts)
const qRng = seededRng(43);
const clustered = battles.map((bt) => ({ ...bt, cluster: Math.floor(qRng() * Q) }));

let t0 = performance.now();
const table = battleTable(battles);
const tTable = secs(t0);
t0 = performance.now();
const full = fitBradleyTerry(table.pairs);
const tFit = secs(t0);
t0 = performance.now();
const cpu0 = process.cpuUsage();
const samples = bootstrapRatingSamples(table, { unit: 'game', rounds: ROUNDS, seed: 7, init: full });
const tBoot = secs(t0);
const cpu = process.cpuUsage(cpu0);
const cpuBoot = (cpu.user + cpu.system) / 1e6;
t0 = performance.now();
const qTable = battleTable(clustered);
const tQTable = secs(t0);
t0 = performance.now();
const cpuQ0 = process.cpuUsage();
const qSamples = bootstrapRatingSamples(qTable, { unit: 'question', rounds: ROUNDS, seed: 7, init: full });
const tQBoot = secs(t0);
const cpuQ = process.cpuUsage(cpuQ0);
const cpuQBoot = (cpuQ.user + cpuQ.system) / 1e6;
const qWidth = columnIntervals(qSamples, M, 0.95).reduce((s2, x) => s2 + (x.hi - x.lo) / M, 0);
const iv = columnIntervals(samples, M, 0.95);
const col = new Map(table.pairs.models.map((m, k) => [m, k]));
const ours = names.map((m) => {
  const k = col.get(m)!;
  return { full: full[k]!, lo: iv[k]!.lo, hi: iv[k]!.hi };
});

console.log(
  `bt-bootstrap: ${N.toLocaleString('en')} battles, ${M} models, ${table.cellCount.length} (pair, outcome) cells, ${ROUNDS} rounds (game-level, multinomial over cells as FastChat)`,
);
console.log(
  `mt-arena (TypeScript, 1 thread): table ${tTable.toFixed(2)} s, full fit ${(tFit * 1000).toFixed(1)} ms, bootstrap ${tBoot.toFixed(2)} s wall, ${cpuBoot.toFixed(2)} s CPU (${((tBoot / ROUNDS) * 1000).toFixed(2)} ms/round)`,
);

console.log(
  `mt-arena, question-cluster bootstrap (${Q} questions, ${qTable.clusters.length} tagged): table ${tQTable.toFixed(2)} s, bootstrap ${tQBoot.toFixed(2)} s wall, ${cpuQBoot.toFixed(2)} s CPU (${((tQBoot / ROUNDS) * 1000).toFixed(2)} ms/round); mean 95% width ${qWidth.toFixed(2)} points`,
);

// style counts per answer: each model has its own verbosity and markdown habit; lengths log-normal around
// ~600 characters, headers / list items / bold spans Poisson (deterministic seed)
const sRng = seededRng(44);
const poisson = (l: number) => {
  let k = 0;
  let p = Math.exp(-l);
  let s = p;
  const u = sRng();
  while (u > s) s += p *= l / ++k;
  return k;
};
const habit = theta.map(() => ({ len: 6.4 + 0.3 * normal(sRng), md: Math.exp(0.5 * normal(sRng)) }));
const answer = (m: number): StyleCounts => ({
  length: Math.round(Math.exp(habit[m]!.len + 0.6 * normal(sRng))),
  headers: poisson(0.8 * habit[m]!.md),
  lists: poisson(3 * habit[m]!.md),
  bold: poisson(1.5 * habit[m]!.md),
});
const styled: StyleBattle[] = clustered.map((bt, k) => ({
  ...bt,
  styleA: answer(a[k]!),
  styleB: answer(b[k]!),
}));
const styleRun = (rounds: number, intervals: 'bootstrap' | 'sandwich' = 'bootstrap') => {
  const t = performance.now();
  const c = process.cpuUsage();
  const r = styleControl(styled, ['length', 'markdown'], { rounds, seed: 7, intervals });
  const u = process.cpuUsage(c);
  return { r, wall: secs(t), cpu: (u.user + u.system) / 1e6 };
};
const sFit = styleRun(0);
// what `arena ratings --style --intervals sandwich` computes: the fit above plus every interval from the sandwich
const sSandwich = styleRun(0, 'sandwich');
const sBoot = styleRun(STYLE_ROUNDS);
// the bootstrap's own cost (the run with rounds minus the run without), scaled to ROUNDS
const sBootWall = ((sBoot.wall - sFit.wall) / STYLE_ROUNDS) * ROUNDS;
const sBootCpu = ((sBoot.cpu - sFit.cpu) / STYLE_ROUNDS) * ROUNDS;
console.log(
  `mt-arena, style control (length + markdown, ${sFit.r.features.length} features; design, contextual BT fit, plain BT fit, clustered sandwich): ${sFit.wall.toFixed(2)} s wall, ${sFit.cpu.toFixed(2)} s CPU; its question bootstrap (style + plain refit per round): ${STYLE_ROUNDS} rounds ${(sBoot.wall - sFit.wall).toFixed(2)} s wall, ${(sBoot.cpu - sFit.cpu).toFixed(2)} s CPU (${(((sBoot.cpu - sFit.cpu) / STYLE_ROUNDS) * 1000).toFixed(0)} ms CPU/round), ${sBootCpu.toFixed(1)} s CPU scaled to ${ROUNDS} rounds; coefficients ${sFit.r.features.map((f) => `${f.feature} ${f.coefficient.toFixed(3)} (se ${f.se.toFixed(3)})`).join(', ')}`,
);
console.log(
  `mt-arena, style control with sandwich intervals (--intervals sandwich: ratings, raw ratings and coefficients): ${sSandwich.wall.toFixed(2)} s wall, ${sSandwich.cpu.toFixed(2)} s CPU`,
);

if (reference) {
  const dir = mkdtempSync(join(tmpdir(), 'bt-bench-'));
  try {
    const csv = join(dir, 'battles.csv');
    const lines = ['a,b,winner'];
    for (let k = 0; k < N; k++) lines.push(`${a[k]},${b[k]},${w[k]}`);
    writeFileSync(csv, `${lines.join('\n')}\n`);
    const script = new URL('./reference/bt_bootstrap.py', import.meta.url).pathname;
    const t1 = performance.now();
    const out = JSON.parse(
      execFileSync('/usr/bin/python3', [script, csv, String(REF_ROUNDS)], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      }),
    ) as {
      cells: number;
      workers: number;
      seconds: { load: number; preprocess: number; fit: number; bootstrap: number; bootstrapCpu: number };
      full: number[];
      lo: number[];
      hi: number[];
    };
    const tRef = secs(t1);
    const perRound = out.seconds.bootstrap / REF_ROUNDS;
    const refBoot = perRound * ROUNDS;
    console.log(
      `reference (FastChat compute_bootstrap_bt, scipy L-BFGS-B, ${out.workers} worker processes): preprocess ${out.seconds.preprocess.toFixed(2)} s, full fit ${(out.seconds.fit * 1000).toFixed(0)} ms, bootstrap ${out.seconds.bootstrap.toFixed(2)} s wall, ${out.seconds.bootstrapCpu.toFixed(2)} s CPU (all processes) for ${REF_ROUNDS} rounds (${(perRound * 1000).toFixed(1)} ms/round)${REF_ROUNDS !== ROUNDS ? `, ${refBoot.toFixed(1)} s scaled to ${ROUNDS} rounds` : ''}; process wall ${tRef.toFixed(1)} s`,
    );
    const refCpu = (out.seconds.bootstrapCpu / REF_ROUNDS) * ROUNDS;
    console.log(
      `speed-up, style control with its sandwich against the reference's game-level bootstrap: ${(refBoot / sFit.wall).toFixed(1)}x wall, ${(refCpu / sFit.cpu).toFixed(1)}x CPU time; with its ${ROUNDS}-round question bootstrap (scaled): ${(refBoot / (sFit.wall + sBootWall)).toFixed(1)}x wall, ${(refCpu / (sFit.cpu + sBootCpu)).toFixed(1)}x CPU time`,
    );
    console.log(
      `speed-up, style control with sandwich intervals (--intervals sandwich) against the reference's game-level bootstrap: ${(refBoot / sSandwich.wall).toFixed(1)}x wall, ${(refCpu / sSandwich.cpu).toFixed(1)}x CPU time`,
    );
    console.log(
      `speed-up, question-cluster bootstrap against the reference's game-level one: ${(refBoot / tQBoot).toFixed(1)}x wall, ${(refCpu0(out) / cpuQBoot).toFixed(1)}x CPU time`,
    );
    console.log(
      `speed-up, bootstrap: ${(refBoot / tBoot).toFixed(1)}x wall (reference ${refBoot.toFixed(2)} s / ours ${tBoot.toFixed(2)} s; ours single-threaded vs the reference's ${out.workers} processes), ${(refCpu / cpuBoot).toFixed(1)}x CPU time`,
    );
    let dFull = 0;
    let dLo = 0;
    let dHi = 0;
    let width = 0;
    names.forEach((_, k) => {
      dFull = Math.max(dFull, Math.abs(ours[k]!.full - out.full[k]!));
      dLo = Math.max(dLo, Math.abs(ours[k]!.lo - out.lo[k]!));
      dHi = Math.max(dHi, Math.abs(ours[k]!.hi - out.hi[k]!));
      width += (ours[k]!.hi - ours[k]!.lo) / M;
    });
    console.log(
      `agreement: full fit max |diff| ${dFull.toFixed(3)} rating points; 95% bounds max |diff| lo ${dLo.toFixed(2)}, hi ${dHi.toFixed(2)} (mean interval width ${width.toFixed(2)}; different random streams, so the bounds differ by Monte Carlo noise)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(
  `goal: under 5 s -> ${tBoot < 5 ? 'met' : 'NOT met'} (${tBoot.toFixed(2)} s wall, ${cpuBoot.toFixed(2)} s CPU; wall time on a shared machine includes waiting for a core)`,
);
