import cliProgress from 'cli-progress';

/**
 * A games progress bar on stderr in `format` (cli-progress tokens); when stderr is not a terminal it writes
 * a line every 5 seconds instead of redrawing.
 */
export function progressBar(format: string): cliProgress.SingleBar {
  return new cliProgress.SingleBar(
    {
      format,
      stream: process.stderr,
      noTTYOutput: true,
      notTTYSchedule: 5000,
      etaBuffer: 50,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
}
