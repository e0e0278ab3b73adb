// Runs a Python reference script (tests/reference/*.py, numpy/scipy) on JSON stdin; `pythonSkip` says why the
// reference tests cannot run.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

export const PYTHON = '/usr/bin/python3';
const REF = fileURLToPath(new URL('../reference/', import.meta.url));

/**
 * One BLAS thread: on problems of a few dozen parameters OpenBLAS's extra threads only spin, most of a
 * reference's CPU on a loaded machine, for the same numbers.
 */
const ENV = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };

/**
 * Why /usr/bin/python3 cannot import numpy/scipy, or undefined: asked once per run (a second of CPU) and kept in
 * the run's folder (tests/support/global-setup.ts) for the other test files.
 */
function probePython(): string | undefined {
  const kept = join(inject('runDir'), 'python-probe.json');
  try {
    return (JSON.parse(readFileSync(kept, 'utf8')) as { skip?: string }).skip;
  } catch {
    // not asked yet in this run (or being written): ask
  }
  const probe = spawnSync(PYTHON, ['-c', 'import numpy, scipy.optimize, scipy.stats'], {
    encoding: 'utf8',
    env: ENV,
  });
  const skip =
    probe.status !== 0
      ? `${PYTHON} cannot import numpy/scipy (${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}): run \`apt-get install python3-scipy\` (.ci/run does this as root)`
      : undefined;
  const tmp = `${kept}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ skip }));
  renameSync(tmp, kept);
  return skip;
}

/** Why /usr/bin/python3 cannot run the references (it cannot import numpy/scipy), or undefined. */
export const pythonSkip: string | undefined = probePython();
if (pythonSkip) console.warn(`[stats reference] skipped: ${pythonSkip}`);

/** `script` (in tests/reference) with `input` as JSON on stdin; its stdout parsed as JSON. Throws with its stderr. */
export function python<T>(script: string, input: unknown, timeoutMs = 300_000): T {
  const r = spawnSync(PYTHON, [join(REF, script)], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    env: ENV,
    timeout: timeoutMs,
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`${script} failed: ${r.stderr || r.error?.message}`);
  return JSON.parse(r.stdout) as T;
}

/**
 * `script` (tests/reference) on the raw files its arguments name, stdout as JSON, once per run and arguments
 * (kept in the run's folder), so files checking one reference pay once (bt_variants.py, power.py: 2-3 s each).
 */
export function referenceOnce<T>(script: string, args: string[], timeoutMs = 120_000): T {
  const kept = join(
    inject('runDir'),
    `reference-${createHash('sha256')
      .update(JSON.stringify([script, ...args]))
      .digest('hex')
      .slice(0, 16)}.json`,
  );
  try {
    return JSON.parse(readFileSync(kept, 'utf8')) as T;
  } catch {
    // not run yet in this run (or being written): run it
  }
  const r = spawnSync(PYTHON, [join(REF, script), ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`${script} failed: ${r.stderr || r.error?.message}`);
  const value = JSON.parse(r.stdout) as T;
  const tmp = `${kept}.${process.pid}`;
  writeFileSync(tmp, r.stdout);
  renameSync(tmp, kept);
  return value;
}
