import cliProgress from 'cli-progress';

/** Whether progress is drawn as a bar (stderr is a terminal) or written as plain lines (a pipe, a file, cron). */
export const drawsBar = (): boolean => process.stderr.isTTY === true;

/**
 * A games progress bar on stderr in `format` (cli-progress tokens); when stderr is not a terminal it writes
 * a plain line (no bar, no escape codes) every 5 seconds instead of redrawing.
 */
export function progressBar(format: string): cliProgress.SingleBar {
  return new cliProgress.SingleBar(
    {
      format: drawsBar() ? format : format.replace(/\{bar\} ?/, ''),
      stream: process.stderr,
      noTTYOutput: true,
      notTTYSchedule: 5000,
      etaBuffer: 50,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
}
