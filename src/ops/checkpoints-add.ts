// `arena checkpoints add`: one more checkpoint appended to a checkpoints config, as a training loop calls it. The
// new text is checked as the config is loaded before it replaces the file (renamed over it); the rest is kept.
import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { modelFromFile } from '../importers/formats.ts';
import { ArenaError } from '../core/types.ts';
import { Checkpoint, loadCheckpointsConfig, modelOf, type CheckpointsConfig } from './checkpoints-config.ts';
import type { Loaded } from './config.ts';
import { jsonSpans } from '../importers/json-spans.ts';
import { fieldPath } from '../core/zod-issues.ts';

type Env = Record<string, string | undefined>;

/** The `arena checkpoints add` option that gives each field of a checkpoint. */
const FLAGS: Record<string, string> = {
  name: '--name',
  step: '--step',
  answers: '--answers',
  'endpoint.baseURL': '--endpoint',
  'endpoint.model': '--model',
  'endpoint.apiKeyEnv': '--api-key-env',
  gguf: '--gguf',
  lora: '--lora',
};
export type NewCheckpoint = CheckpointsConfig['checkpoints'][number];

/** What `add` appended, and the config as it now reads. */
export interface Added {
  entry: NewCheckpoint;
  config: Loaded<CheckpointsConfig>;
}

/**
 * Appends `k` to the config `file`, its paths written relative to the config's directory (an answers file's
 * `model` set when its name differs from `<series>@<name>`). Anything the config's checks refuse leaves the file.
 */
export function addCheckpoint(file: string, k: NewCheckpoint, env: Env = {}): Added {
  const before = loadCheckpointsConfig(file, env);
  const c = before.config;
  const checked = Checkpoint.safeParse(k);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const field = issue.path.length ? fieldPath(issue.path) : undefined;
    const flag = FLAGS[field ?? ''];
    throw new ArenaError(
      `checkpoint "${k.name}": ${field ? `field "${field}"${flag ? ` (${flag})` : ''}: ` : ''}${issue.message}; ${file} is unchanged`,
      { file, ...(field ? { field } : {}) },
    );
  }
  for (const p of [k.answers, k.gguf, k.lora])
    if (p !== undefined && !existsSync(p)) throw new ArenaError(`${p}: no such file`, { file: p });
  const entry: NewCheckpoint = { name: k.name, step: k.step };
  if (k.answers) {
    const stem = modelFromFile(k.answers);
    if (k.model !== undefined && k.model !== stem)
      throw new ArenaError(
        `${k.answers}: answers are stored under the file's name "${stem}", not "${k.model}"`,
      );
    if (stem !== `${c.series}@${k.name}`) entry.model = stem;
    entry.answers = relativeTo(file, k.answers);
  } else if (k.endpoint) {
    if (k.model) entry.model = k.model;
    entry.endpoint = k.endpoint;
  } else {
    if (k.model) entry.model = k.model;
    entry.gguf = relativeTo(file, k.gguf!);
    if (k.lora) entry.lora = relativeTo(file, k.lora);
  }
  refuseTaken(before, entry);
  const text = withCheckpoint(before.text, entry);
  const after = loadCheckpointsConfig(file, env, text);
  replaceFile(file, text);
  return { entry, config: after };
}

/** A name, step or model the series has (listed or in its watched directory): said plainly, nothing written. */
function refuseTaken(l: Loaded<CheckpointsConfig>, k: NewCheckpoint): void {
  const c = l.config;
  for (const o of c.checkpoints) {
    const same =
      o.name === k.name
        ? `the name "${k.name}"`
        : o.step === k.step
          ? `the step ${k.step}`
          : modelOf(c, o) === modelOf(c, k)
            ? `the model "${modelOf(c, k)}"`
            : undefined;
    if (same)
      throw new ArenaError(
        `${l.file}: checkpoint "${o.name}" (step ${o.step}) already has ${same}; nothing was changed (each checkpoint needs its own name, step and model)`,
        { file: l.file },
      );
  }
}

/** A path as the config holds it: relative to the config's directory when inside it, else absolute. */
function relativeTo(configFile: string, p: string): string {
  const r = relative(dirname(configFile), p);
  return isAbsolute(r) || r.startsWith('..') ? p : r.split(sep).join('/');
}

/** One line of JSON spaced as a person (or prettier) writes it: `{ "name": "a", "step": 1 }`. */
function oneLine(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(oneLine).join(', ')}]`;
  const fields = Object.entries(v).filter(([, x]) => x !== undefined);
  return fields.length
    ? `{ ${fields.map(([k, x]) => `${JSON.stringify(k)}: ${oneLine(x)}`).join(', ')} }`
    : '{}';
}

/** The config's text with `k` appended to its `checkpoints` list, indented like its first entry. */
function withCheckpoint(text: string, k: NewCheckpoint): string {
  const spans = jsonSpans(text);
  const item = oneLine(k);
  const list = spans.get(JSON.stringify(['checkpoints']));
  const lineIndent = (at: number) => /^[ \t]*/.exec(text.slice(text.lastIndexOf('\n', at - 1) + 1))![0];
  if (list) {
    const first = spans.get(JSON.stringify(['checkpoints', 0]));
    if (!first) {
      const ind = lineIndent(list.start);
      return `${text.slice(0, list.start)}[\n${ind}  ${item}\n${ind}]${text.slice(list.end)}`;
    }
    let n = 0;
    while (spans.has(JSON.stringify(['checkpoints', n + 1]))) n++;
    const last = spans.get(JSON.stringify(['checkpoints', n]))!;
    const gap = text.slice(list.start + 1, first.start);
    return `${text.slice(0, last.end)},${/\n/.test(gap) ? gap : ' '}${item}${text.slice(last.end)}`;
  }
  // no list yet: after the last field of the top object
  const root = spans.get('[]')!;
  let end = root.start + 1;
  let firstKey: number | undefined;
  for (const [key, s] of spans)
    if ((JSON.parse(key) as unknown[]).length === 1) {
      end = Math.max(end, s.end);
      firstKey ??= s.start;
    }
  const ind = firstKey === undefined ? '  ' : lineIndent(firstKey);
  const sep = end > root.start + 1 ? ',' : '';
  return `${text.slice(0, end)}${sep}\n${ind}"checkpoints": [\n${ind}  ${item}\n${ind}]${text.slice(end)}`;
}

/** Write `text` to a temporary file beside `file` (same mode), then rename it over `file`: readers see one or the other. */
function replaceFile(file: string, text: string): void {
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, text, { mode: statSync(file).mode & 0o777, flag: 'wx' });
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new ArenaError(
      `${file}: cannot write the config (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); it is unchanged`,
      { file },
      { cause: e },
    );
  }
}
