import { defineCommand } from 'citty';
import { importFiles, mtbenchSources, type ImportSources } from '../../importers/import.ts';
import { int } from '../format.ts';
import { cacheDir } from '../cache-dir.ts';
import { dbArg, print, withImportStore, withStore, log } from '../shared.ts';
import { updateReportsOf } from '../reports.ts';

function fileImport(kind: 'questions' | 'answers' | 'references' | 'prompts', description: string) {
  return defineCommand({
    meta: { name: kind, description },
    args: { ...dbArg, files: { type: 'positional', description: 'files to import', required: true } },
    async run({ args }) {
      await doImport(args.db, { [kind]: args._ });
    },
  });
}

async function doImport(db: string, src: ImportSources) {
  const notes: string[] = [];
  const { warnings, ...counts } = await withImportStore(db, (store) =>
    importFiles(store, src, { note: (line) => notes.push(line) }),
  );
  // besides skipped rows, a warning may say how a file's model was named
  const skipped = warnings.filter((w) => w.endsWith('; skipped')).length;
  for (const w of warnings.slice(0, 20)) process.stderr.write(`warning: ${w}\n`);
  if (warnings.length > 20) process.stderr.write(`warning: ... and ${warnings.length - 20} more\n`);
  print(
    `imported into ${db}: ${
      Object.entries(counts)
        .filter(([, n]) => n)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ') || 'nothing'
    }${skipped ? ` (${skipped} row(s) skipped, see the warnings)` : ''}`,
  );
  for (const n of notes) print(n);
  await updateReportsOf(db);
}

const judgmentsCommand = defineCommand({
  meta: {
    name: 'judgments',
    description:
      "FastChat's model_judgment/*_pair.jsonl and *_single.jsonl, plain or gzip (recorded verdicts are kept as recorded)",
  },
  args: {
    ...dbArg,
    judge: {
      type: 'string',
      description:
        "store the games under this judge name (default: the file's judge field, which may name serving software)",
    },
    files: { type: 'positional', description: 'files to import (.jsonl or .jsonl.gz)', required: true },
  },
  async run({ args }) {
    await doImport(args.db, {
      judgments: args._,
      ...(args.judge ? { judgmentsJudge: args.judge } : {}),
    });
  },
});

const votesCommand = defineCommand({
  meta: {
    name: 'votes',
    description:
      'HF mt_bench_human_judgments splits (CSV, JSON array or JSONL): human votes and gpt4_pair outcomes',
  },
  args: {
    ...dbArg,
    turn: { type: 'string', description: 'turn for files without a turn column' },
    files: { type: 'positional', description: 'vote files (CSV, JSON or JSONL)', required: true },
  },
  async run({ args }) {
    const turn = int(args.turn, 'turn');
    await doImport(args.db, {
      votes: args._.map((path) => ({ path, ...(turn !== undefined ? { turn } : {}) })),
    });
  },
});

const mtbenchCommand = defineCommand({
  meta: { name: 'mtbench', description: 'a whole MT-Bench release: from --dir, or downloaded (pinned URLs)' },
  args: {
    ...dbArg,
    dir: {
      type: 'string',
      description: 'a release laid out as FastChat data/mt_bench (question.jsonl, model_answer/, ...)',
    },
    'base-url': {
      type: 'string',
      description: 'download every file from this mirror (same layout) instead of the pinned sources',
    },
    manifest: {
      type: 'string',
      description:
        'JSON file mapping release paths to URLs, for mirrors in another layout (hashes stay pinned)',
      valueHint: 'FILE',
    },
    cache: { type: 'string', description: 'where downloads are kept (default: ~/.cache/mt-arena)' },
  },
  async run({ args }) {
    await doImport(args.db, mtbenchSources(args.dir ?? (await downloadRelease(args))));
  },
});

/** The MT-Bench release downloaded (pinned sources, or a mirror: --base-url, --manifest) into the cache; its folder. */
export async function downloadRelease(args: { 'base-url'?: string; manifest?: string; cache?: string }) {
  const { downloadMtbench, loadManifest, MTBENCH_CACHE } = await import('../../importers/download.ts');
  return downloadMtbench({
    ...(args['base-url'] ? { baseUrl: args['base-url'] } : {}),
    ...(args.manifest ? { urls: loadManifest(args.manifest) } : {}),
    cacheDir: args.cache ?? cacheDir(MTBENCH_CACHE),
    log,
  });
}

const autojCommand = defineCommand({
  meta: {
    name: 'autoj',
    description:
      "Auto-J's judge template (not shipped: no licence), from its project at a pinned, hash-checked commit",
  },
  args: {
    ...dbArg,
    dir: { type: 'string', description: 'a folder holding constants_prompt.py (offline; checked by hash)' },
    'base-url': {
      type: 'string',
      description: 'download constants_prompt.py from this mirror instead of the pinned GitHub URL',
    },
    cache: { type: 'string', description: 'where the download is kept (default: ~/.cache/mt-arena)' },
  },
  async run({ args }) {
    const { loadAutojSchemes, AUTOJ_CACHE } = await import('../../importers/autoj.ts');
    const prompts = await loadAutojSchemes({
      ...(args.dir ? { dir: args.dir } : {}),
      ...(args['base-url'] ? { baseUrl: args['base-url'] } : {}),
      cacheDir: args.cache ?? cacheDir(AUTOJ_CACHE),
      log,
    });
    await withStore(args.db, {}, (store) => store.importBundle({ prompts }));
    print(`imported into ${args.db}: ${prompts.length} prompts (${prompts.map((p) => p.name).join(', ')})`);
  },
});

export default defineCommand({
  meta: {
    name: 'import',
    description: 'import questions, answers, prompts, judgments or votes (one transaction: all or nothing)',
  },
  subCommands: {
    questions: fileImport('questions', 'MT-Bench question.jsonl files'),
    answers: fileImport(
      'answers',
      "model answers in FastChat's model_answer/<model>.jsonl shape (model: the lines' model_id when they agree on one, else the file name)",
    ),
    references: fileImport(
      'references',
      'reference answers (reference_answer/<source>.jsonl; source = file name)',
    ),
    prompts: fileImport('prompts', "judge prompt schemes in FastChat's judge_prompts.jsonl shape"),
    judgments: judgmentsCommand,
    votes: votesCommand,
    mtbench: mtbenchCommand,
    autoj: autojCommand,
    pairs: () => import('./pairs.ts').then((m) => m.importPairsCommand),
  },
});
