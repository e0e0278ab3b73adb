// Auto-J's judge template, loaded from its project instead of shipped: GAIR-NLP/auto-j carries no licence, so its
// prompt text is not ours to redistribute (NOTICE). The file is fetched at a pinned commit and checked against
// its git blob hash and size; its `pairwise_tie` string becomes our two schemes on the user's machine.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArenaError, type PromptScheme } from '../core/types.ts';
import { downloadMtbench, gitBlobSha1, type ReleaseFile } from './download.ts';
import { promptsFrom } from './formats.ts';
import { readPythonString } from './python-string.ts';

const AUTOJ_REPO = 'GAIR-NLP/auto-j';
const AUTOJ_COMMIT = '5e280beeedf64d631d0d6acf1808bf00ad86c69b';

/** codes/usage/constants_prompt.py at AUTOJ_COMMIT (only its hash and size are kept here, never its text). */
export const AUTOJ_FILE: ReleaseFile = {
  path: 'constants_prompt.py',
  url: `https://raw.githubusercontent.com/${AUTOJ_REPO}/${AUTOJ_COMMIT}/codes/usage/constants_prompt.py`,
  blob: '4435844554d2022c27adcc342ecc253e702d0f96',
  size: 2039,
};

/** The cache folder of the pinned file, named for its commit. */
export const AUTOJ_CACHE = 'auto-j-5e280be';

/** The schemes assembled from the file: upstream's single-turn template, and our multi-turn layout of it. */
export const AUTOJ_SCHEME_NAMES = ['autoj-pair-v1', 'autoj-pair-v1-multi-turn'] as const;

/** How to get the template, for errors that find it missing. */
export const AUTOJ_HOW_TO =
  'run `arena import autoj --db DB` once for the database (downloads GAIR-NLP/auto-j codes/usage/constants_prompt.py at the pinned ' +
  `commit ${AUTOJ_COMMIT.slice(0, 7)}; offline: fetch that file elsewhere and give its folder with --dir, ` +
  'or a mirror with --base-url); see docs/judges.md, "Provenance"';

/** Upstream's placeholders and what each becomes in a single-turn and in a multi-turn scheme. */
const SLOTS: Record<string, [string, string]> = {
  prompt: ['{question}', '{question_1}\n\n[Follow-up Question]\n{question_2}'],
  response: [
    '{answer_a}',
    '[Answer to the Question]\n{answer_a_1}\n\n[Answer to the Follow-up Question]\n{answer_a_2}',
  ],
  response_another: [
    '{answer_b}',
    '[Answer to the Question]\n{answer_b_1}\n\n[Answer to the Follow-up Question]\n{answer_b_2}',
  ],
};

/** The Auto-J schemes from the bytes of constants_prompt.py (`file` names it in errors). Pure. */
export function autojSchemes(file: string, bytes: Uint8Array): PromptScheme[] {
  const source = Buffer.from(bytes).toString('utf8');
  const template = readPythonString(file, source, 'pairwise_tie');
  const line = source.split('\n').findIndex((l) => l.startsWith('pairwise_tie')) + 1;
  const fields = [...template.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!);
  for (const name of Object.keys(SLOTS))
    if (fields.filter((f) => f === name).length !== 1)
      throw new ArenaError(
        `${file}:${line}: field "pairwise_tie": expected the placeholder {${name}} exactly once, found it ${fields.filter((f) => f === name).length} times`,
        { file, line, field: 'pairwise_tie' },
      );
  const other = fields.find((f) => !Object.hasOwn(SLOTS, f));
  if (other !== undefined || /\{\{|\}\}/.test(template))
    throw new ArenaError(
      `${file}:${line}: field "pairwise_tie": unexpected placeholder ${other !== undefined ? `{${other}}` : '{{ or }}'} (expected only {prompt}, {response}, {response_another})`,
      { file, line, field: 'pairwise_tie' },
    );
  const fill = (turns: 0 | 1) => template.replace(/\{(\w+)\}/g, (_, f: string) => SLOTS[f]![turns]);
  const rows = [
    {
      name: AUTOJ_SCHEME_NAMES[0],
      prompt_template: fill(0),
      description:
        'Auto-J\'s pairwise_tie protocol: "So, the final decision is Response 1 / Response 2 / Tie"',
    },
    {
      name: AUTOJ_SCHEME_NAMES[1],
      prompt_template: fill(1),
      description: "Auto-J's pairwise_tie protocol, both turns in the query and response slots (our layout)",
    },
  ].map((r) => ({
    name: r.name,
    type: 'pairwise',
    system_prompt: '',
    prompt_template: r.prompt_template,
    description: r.description,
    category: 'general',
    output_format: 'autoj',
  }));
  return promptsFrom(
    file,
    rows.map((value) => ({ line, value })),
  );
}

export interface AutojSourceOptions {
  /** a folder already holding constants_prompt.py (no network); it is checked like a download */
  dir?: string;
  /** where the download is kept (the CLI's default: cacheDir(AUTOJ_CACHE), src/cli/cache-dir.ts) */
  cacheDir: string;
  /** fetch `${baseUrl}/constants_prompt.py` (a mirror) instead of the pinned URL */
  baseUrl?: string;
  /** another pin (a test's own fixture); the default is AUTOJ_FILE */
  pin?: Pick<ReleaseFile, 'blob' | 'size'>;
  retries?: number;
  log?(message: string): void;
}

/** The path of a checked constants_prompt.py: from `dir`, or downloaded into `cacheDir` (kept there). */
async function autojSource(o: AutojSourceOptions): Promise<string> {
  const pinned: ReleaseFile = { ...AUTOJ_FILE, ...o.pin };
  if (o.dir === undefined) {
    const dir = await downloadMtbench({
      files: [pinned],
      cacheDir: o.cacheDir,
      ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
      ...(o.retries !== undefined ? { retries: o.retries } : {}),
      ...(o.log ? { log: o.log } : {}),
    }).catch((e: unknown) => {
      if (!(e instanceof ArenaError) || !/download failed/.test(e.message)) throw e;
      throw new ArenaError(
        `${e.message}: the Auto-J template is not shipped with mt-arena (its project has no licence); ` +
          `download ${AUTOJ_FILE.url} on a machine that is online and give its folder with --dir, ` +
          'or a mirror with --base-url',
        { file: pinned.path },
        { cause: e },
      );
    });
    return join(dir, pinned.path);
  }
  const file = join(o.dir, pinned.path);
  if (!existsSync(file))
    throw new ArenaError(
      `${file}: not found; download ${AUTOJ_FILE.url} into ${o.dir} (the Auto-J template is not shipped with mt-arena)`,
      { file },
    );
  const got = gitBlobSha1(readFileSync(file));
  if (got !== pinned.blob)
    throw new ArenaError(
      `${file}: not the pinned file: git blob ${got}, expected ${pinned.blob} (${AUTOJ_REPO} at ${AUTOJ_COMMIT.slice(0, 7)}); nothing was imported`,
      { file },
    );
  return file;
}

/** The Auto-J schemes, from a checked copy of constants_prompt.py (autojSource). */
export async function loadAutojSchemes(o: AutojSourceOptions): Promise<PromptScheme[]> {
  const file = await autojSource(o);
  return autojSchemes(file, readFileSync(file));
}
