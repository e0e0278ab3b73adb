import { ALLOWANCE_TAG } from '../../core/constants.ts';
import { runTournament, type RunSummary } from '../../engine/run.ts';
import type { GovernedJudge } from '../../judges/registry.ts';
import { keyInRepliesWarning } from '../../judges/redact.ts';
import { Progress } from '../progress-bar.ts';
import { exitStatus, print } from '../shared.ts';
import { failureLines } from '../errors.ts';
import { runName } from '../format.ts';

/** The progress bar (none before the plan, nor after an interruption) and whether the run was interrupted. */
export interface RunUi {
  bar: Progress | undefined;
  interrupted: boolean;
}

/** One judge's tournament, with its plan on stderr and a progress bar while it plays. */
export async function playWithProgress(
  o: Parameters<typeof runTournament>[0],
  judge: GovernedJudge,
  concurrency: number,
  ui: RunUi,
): Promise<RunSummary> {
  const t0 = Date.now();
  return runTournament({
    ...o,
    onPlan: ({ planned, stored, toPlay }) => {
      process.stderr.write(
        `${planned} games planned, ${stored} already stored: ${toPlay} judge calls to make with ${judge.id} (concurrency ${concurrency})\n`,
      );
      if (!toPlay) return;
      ui.bar = new Progress(
        'games {bar} {value}/{total} | {rate}/s | ETA {eta} | failed {failed} | tokens {tokens} | {tpm}',
      );
      ui.bar.start(toPlay, 0, { failed: 0, tokens: 0, tpm: tokensPerMinute(0, 0, judge.limits().tpm) });
    },
    onProgress: (p) => {
      if (ui.interrupted) return;
      const secs = (Date.now() - t0) / 1000;
      ui.bar?.update(p.done + p.failed, {
        failed: p.failed,
        tokens: p.tokensIn + p.tokensOut,
        // no rate while nothing was played: failed calls' charges are no throughput
        tpm: tokensPerMinute(p.done ? judge.tokensCharged() : 0, secs, judge.limits().tpm),
      });
    },
  });
}

/** The run's summary line, its warnings and failures; sets the exit status (2: games failed, 130: interrupted). */
export function reportRun(summary: RunSummary, db: string): void {
  const secs = ((summary.finishedAt! - summary.startedAt) / 1000).toFixed(1);
  print(
    `${runName(summary)}${summary.status === 'interrupted' ? ' interrupted' : ''}: ${summary.played} played, ${summary.failed} failed, ${summary.planned - summary.toPlay} already stored, ${summary.tokensIn + summary.tokensOut} tokens, ${secs} s`,
  );
  if (summary.elsewhere)
    process.stderr.write(
      `${summary.elsewhere} planned game(s) were played by another run on ${db} meanwhile\n`,
    );
  if (summary.redacted) process.stderr.write(`${keyInRepliesWarning(summary.redacted)}\n`);
  if (summary.usageUnknown)
    process.stderr.write(
      `${summary.usageUnknown} game(s) came without valid token counts (usage); their tokens are unknown and not in the total\n`,
    );
  const allowance = Number(summary.config.allowance ?? 0);
  const before = Number(summary.config.allowanceBefore ?? 0);
  if (allowance || before)
    process.stderr.write(
      `${allowance + before} game(s) without a verdict because reasoning used the whole allowance (${allowance} this run, billed; ${before} earlier, not sent again): raise --max-tokens (settings.maxTokens) or lower --reasoning-effort, which makes them new games\n`,
    );
  if (summary.failed > allowance) {
    for (const l of failureLines(summary.errors.filter((e) => !e.startsWith(ALLOWANCE_TAG))))
      process.stderr.write(`${l}\n`);
    process.stderr.write(
      `${summary.failed - allowance} game(s) not played (no verdict stored); rerun the same command to retry them\n`,
    );
  }
  if (summary.failed || before) exitStatus.code = 2;
  if (summary.status === 'interrupted') exitStatus.code = 130;
}

/** `12.3k tokens/min of 90k`: the tokens charged per minute so far, against the known limit. */
function tokensPerMinute(tokens: number, secs: number, tpm: number | undefined): string {
  const k = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : n.toFixed(0));
  const rate = `${tokens ? k((tokens * 60) / Math.max(secs, 1)) : '-'} tokens/min`;
  return tpm ? `${rate} of ${k(tpm)}` : rate;
}
