// The end of a run whose database refused a write (a full disk, say): no call was started after the refusal,
// the replies already paid for that could not be stored go to the spill (PlayOptions.spill) for the next run
// to store, the run is marked failed with the reason, and one error says what happened and what to do.
import { ArenaError } from '../../core/types.ts';
import type { LiveRun } from './live-run.ts';
import { runRecord } from './record.ts';
import type { PlayOptions } from './types.ts';

export async function storageStop(live: LiveRun, o: PlayOptions): Promise<never> {
  const { run, store } = live;
  const fault = live.storageFault!;
  const reason = `the database refused a write: ${fault.message}`;
  Object.assign(run, { status: 'failed', finishedAt: Date.now(), heartbeatAt: null });
  run.config = { ...run.config, stoppedBy: reason };
  live.noteError(reason);
  // on a full disk this may fail too: the spilled record says it, and the next run stores it
  const saved = await store.runs.save(runRecord(run)).then(
    () => true,
    () => false,
  );
  const n = live.unstored.length;
  let kept = '';
  if (n) {
    const where = o.spill
      ? await o.spill(live.unstored, runRecord(run)).catch((e: unknown) => {
          kept = ` (they could not be saved elsewhere either: ${(e as Error).message})`;
          return undefined;
        })
      : undefined;
    kept = where
      ? `; the ${n} paid verdict(s) it could not store were saved to ${where}, and the next \`arena run\`, \`refresh\` or \`checkpoints run\` on this database stores them`
      : `; ${n} paid verdict(s) could not be stored${kept}`;
  }
  throw new ArenaError(
    `run ${run.id} stopped: ${reason}; ${run.played} game(s) stored, no more judge calls made${kept}` +
      `${saved ? '' : '; the run could not be marked failed in the database'}; free some space and rerun`,
    {},
    { cause: fault },
  );
}
