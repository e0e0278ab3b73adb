// Runs a Python reference script (tests/reference/*.py, numpy/scipy) on JSON stdin; `pythonSkip` says why the
// reference tests cannot run.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PYTHON = '/usr/bin/python3';
const REF = fileURLToPath(new URL('../reference/', import.meta.url));

const probe = spawnSync(PYTHON, ['-c', 'import numpy, scipy.optimize, scipy.stats'], { encoding: 'utf8' });
/** Why /usr/bin/python3 cannot run the references (it cannot import numpy/scipy), or undefined. */
export const pythonSkip: string | undefined =
  probe.status !== 0
    ? `${PYTHON} cannot import numpy/scipy (${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}): run \`apt-get install python3-scipy\` (.ci/run does this as root)`
    : undefined;
if (pythonSkip) console.warn(`[stats reference] skipped: ${pythonSkip}`);

/** `script` (in tests/reference) with `input` as JSON on stdin; its stdout parsed as JSON. Throws with its stderr. */
export function python<T>(script: string, input: unknown, timeoutMs = 300_000): T {
  const r = spawnSync(PYTHON, [join(REF, script)], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`${script} failed: ${r.stderr || r.error?.message}`);
  return JSON.parse(r.stdout) as T;
}
