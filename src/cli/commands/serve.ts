import { defineCommand } from 'citty';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { STUDY_JUDGE } from '../../reports/judge-quality/duel.ts';
import { ArenaError } from '../../core/types.ts';
import { importFiles, mtbenchSources } from '../../importers/import.ts';
import { int, oneOf, UsageError } from '../format.ts';
import { cacheDir } from '../cache-dir.ts';
import { dbArg, openStore, print, removeDatabase, withStore, log } from '../shared.ts';
import type { SqliteStore } from '../../storage/sqlite.ts';
import type { AnnotateOptions } from '../../web/annotate/routes.ts';
import type { AppOptions } from '../../web/app.ts';
import type { Context } from 'hono';
import { randomBytes } from 'node:crypto';
import { updateReports } from '../reports.ts';

async function listen(store: SqliteStore, o: { port: number; host: string } & Omit<AppOptions, 'store'>) {
  const { port, host } = o;
  // loaded here, not at the top: the site's modules (charts, markdown) would slow down every `arena --help`
  const { serveNode } = await import('../../entry/node.ts');
  // listened for before the server starts: a Ctrl-C during its start still closes the store
  const stop = new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  try {
    const server = await serveNode(store, o).catch((e: NodeJS.ErrnoException) => {
      const why =
        e.code === 'EADDRINUSE'
          ? 'is in use'
          : e.code === 'EACCES'
            ? 'is not allowed for this user'
            : `cannot be opened (${e.code ?? e.message})`;
      throw new ArenaError(
        `port ${port} on ${host} ${why}; choose another with --port (--port 0 picks a free one)`,
        undefined,
        { cause: e },
      );
    });
    print(`leaderboard on ${server.url}/`);
    await stop;
    await server.close();
  } finally {
    await store.close();
  }
}

/** The port to listen on: an integer from 0 (a free one) to 65535, from --port or $PORT. */
function portOf(v: string): number {
  const from = process.env.PORT !== undefined && v === process.env.PORT ? `PORT=${v}` : `--port ${v}`;
  const n = /^\d{1,5}$/.test(v.trim()) ? Number(v) : NaN;
  if (!(n >= 0 && n <= 65535))
    throw new UsageError(`${from}: a port is an integer from 0 to 65535 (0 picks a free one)`);
  return n;
}

const serveArgs = {
  ...dbArg,
  port: {
    type: 'string',
    // read when the command runs, not when this module loads (a process may run several commands)
    get default() {
      return process.env.PORT ?? '3000';
    },
    description: 'port to listen on ($PORT when set; 0 picks a free one)',
  },
  host: {
    type: 'string',
    default: '127.0.0.1',
    description: 'address to listen on (0.0.0.0 for every interface)',
  },
  intervals: {
    type: 'string',
    default: 'bootstrap',
    description: 'rating intervals: bootstrap (1,000 refits) | sandwich (robust CLT, one fit)',
  },
  'site-url': {
    type: 'string',
    description: "the site's public address (https://host): canonical links and og:url become absolute",
    valueHint: 'URL',
  },
} as const;

const annotateArgs = {
  annotate: {
    type: 'boolean',
    description:
      'turn on /annotate, the blind voting page for invited annotators (`arena annotators add`); sessions are signed with $ARENA_ANNOTATE_SECRET',
  },
  'trust-proxy': {
    type: 'string',
    description:
      'with --annotate: the number of reverse proxies in front (1 for one nginx or Caddy); the limits then count the client named by X-Forwarded-For that many entries from the right, not the socket',
    valueHint: 'N',
  },
  'annotate-queue': {
    type: 'string',
    default: 'review',
    description: 'what annotators see first: review (the matches the judges disagree on most) | uniform',
  },
} as const;

/** --annotate: the page's options, its session secret from $ARENA_ANNOTATE_SECRET (else one for this process). */
async function annotateOptions(args: {
  annotate?: boolean;
  'annotate-queue'?: string;
  'trust-proxy'?: string;
}) {
  if (!args.annotate) {
    if (args['trust-proxy'] !== undefined) throw new UsageError('--trust-proxy goes with --annotate');
    return undefined;
  }
  const queue = oneOf(args['annotate-queue'] ?? 'review', 'annotate-queue', ['review', 'uniform'] as const);
  // in range by the one schema of numeric options (cli/validate.ts)
  const hops = args['trust-proxy'] === undefined ? 0 : int(args['trust-proxy'], 'trust-proxy')!;
  const { secretProblem } = await import('../../web/annotate/routes.ts');
  const { forwardedClient } = await import('../../web/annotate/rate-limit.ts');
  const { getConnInfo } = await import('@hono/node-server/conninfo');
  let secret = process.env.ARENA_ANNOTATE_SECRET;
  const weak = secret === undefined ? undefined : secretProblem(secret);
  if (weak) throw new UsageError(`ARENA_ANNOTATE_SECRET ${weak}`);
  if (!secret) {
    secret = randomBytes(32).toString('hex');
    process.stderr.write(
      'annotate: no ARENA_ANNOTATE_SECRET set; sessions are signed with a key of this process and end when it stops\n',
    );
  }
  // behind proxies, a request that did not come through them all counts as the nearest one (the socket)
  const address = (c: Context) =>
    (hops ? forwardedClient(c.req.header('x-forwarded-for'), hops) : undefined) ??
    getConnInfo(c).remote.address;
  return { secret, queue, address } satisfies AnnotateOptions;
}

export const serveCommand = defineCommand({
  meta: { name: 'serve', description: 'serve the leaderboard site over a database' },
  args: { ...serveArgs, ...annotateArgs },
  async run({ args }) {
    const port = portOf(args.port);
    const intervals = oneOf(args.intervals, 'intervals', ['bootstrap', 'sandwich'] as const);
    const site = siteUrl(args['site-url']);
    const annotate = await annotateOptions(args);
    const { reopeningStore } = await import('../reopen.ts');
    // a refresh republishes by rename: follow the path; read-only unless annotators vote, then never on a copy
    const opts = annotate ? { source: 'serve --annotate' } : { readonly: true };
    const store = reopeningStore(args.db, () => openStore(args.db, opts), { log });
    await listen(store, { port, host: args.host, intervals, ...site, ...(annotate ? { annotate } : {}) });
  },
});

/** `npm start`: the data an empty database lacks imported (from the environment's folders, else downloaded), then serve. */
export const startCommand = defineCommand({
  meta: {
    name: 'start',
    description:
      "import the MT-Bench release and the Judge Llama 2 study's judgments into an empty database (from $MTBENCH_DIR / $JUDGE_LLAMA2_DIR, else downloaded; LLMBar's sets from $JUDGE_SETS_DIR), then serve the leaderboard",
  },
  args: {
    ...serveArgs,
    'base-url': {
      type: 'string',
      description:
        'download the release from this mirror (same layout as the release) instead of GitHub and Hugging Face',
    },
    manifest: {
      type: 'string',
      description: 'JSON file mapping release paths to URLs (hashes stay pinned)',
      valueHint: 'FILE',
    },
  },
  async run({ args }) {
    const port = portOf(args.port);
    const intervals = oneOf(args.intervals, 'intervals', ['bootstrap', 'sandwich'] as const);
    const existed = existsSync(args.db);
    const judges = existed
      ? await withStore(args.db, {}, async (s) => ({
          empty: (await s.catalog.questions()).length === 0,
          names: (await s.games.judges()).map((j) => j.judge),
        }))
      : { empty: true, names: [] as string[] };
    if (!judges.empty)
      log(
        `serving ${args.db} as it is (judges: ${judges.names.join(', ') || 'none'}); to import the release again, remove it first (rm ${args.db}) or run \`arena import mtbench --db ${args.db}\``,
      );
    let study: string | undefined;
    let sources: ReturnType<typeof mtbenchSources> | undefined;
    let dir: string | undefined;
    if (judges.empty) {
      // find and check the release before creating anything: a failure leaves no empty database behind
      dir = process.env.MTBENCH_DIR;
      if (dir) {
        try {
          sources = mtbenchSources(dir);
        } catch (e) {
          throw new ArenaError(
            `MTBENCH_DIR=${dir}: ${existsSync(dir) ? "not an MT-Bench release (no question.jsonl; it should be a copy of FastChat's data/mt_bench)" : 'no such folder'}; fix it or unset it to download the release`,
            { file: dir },
            { cause: e },
          );
        }
      } else {
        try {
          dir = await (await import('./import.ts')).downloadRelease(args);
        } catch (e) {
          if (args.manifest && (e as Error).message.startsWith(`${args.manifest}:`)) throw e;
          throw new ArenaError(
            `could not download the MT-Bench release: ${(e as Error).message}. Offline or behind a firewall? Set MTBENCH_DIR to a copy of FastChat's data/mt_bench (MTBENCH_DIR=path/to/mt_bench npm start), or download from a mirror with --base-url URL or --manifest FILE`,
            undefined,
            { cause: e },
          );
        }
        sources = mtbenchSources(dir);
      }
    }
    const studyDir = process.env.JUDGE_LLAMA2_DIR;
    if (!judges.names.includes(STUDY_JUDGE) && studyDir !== 'none') {
      const { STUDY_CACHE, STUDY_JUDGMENTS, downloadStudyJudgments } =
        await import('../../importers/judge-llama2.ts');
      try {
        study = studyDir
          ? join(studyDir, STUDY_JUDGMENTS)
          : await downloadStudyJudgments({
              ...(process.env.JUDGE_LLAMA2_URL ? { url: process.env.JUDGE_LLAMA2_URL } : {}),
              cacheDir: cacheDir(STUDY_CACHE),
              log,
            });
      } catch (e) {
        throw new ArenaError(
          `could not download the Judge Llama 2 study's judgments: ${(e as Error).message}. Offline? Set JUDGE_LLAMA2_DIR to a copy of its data (laid out as ../shared/judge_llama2), JUDGE_LLAMA2_URL to a mirror, or JUDGE_LLAMA2_DIR=none to start without it`,
          undefined,
          { cause: e },
        );
      }
      if (!existsSync(study))
        throw new ArenaError(
          `${study}: no such file (JUDGE_LLAMA2_DIR=${studyDir} should be laid out as ../shared/judge_llama2; JUDGE_LLAMA2_DIR=none skips the study)`,
          { file: study },
        );
    }
    const store = openStore(args.db);
    // an import that fails leaves no database behind where there was none
    try {
      if (dir && sources) {
        const counts = await importFiles(store, sources);
        print(
          `imported the MT-Bench release from ${dir}: ${counts.questions} questions, ${counts.answers} answers, ${counts.votes} votes`,
        );
      }
      if (study) {
        const notes: string[] = [];
        const counts = await importFiles(
          store,
          { judgments: [study], judgmentsJudge: STUDY_JUDGE },
          { note: (n) => notes.push(n) },
        );
        print(
          `imported the Judge Llama 2 study's judgments from ${study}: ${counts.games} games as judge ${STUDY_JUDGE}`,
        );
        for (const n of notes) print(n);
      }
      const setsDir = process.env.JUDGE_SETS_DIR;
      if (setsDir && setsDir !== 'none' && (await store.catalog.pairSets()).length === 0) {
        const llmbar = existsSync(join(setsDir, 'llmbar')) ? join(setsDir, 'llmbar') : setsDir;
        const { importPairs } = await import('../../importers/pairs.ts');
        const { sets } = await importPairs(store, llmbar);
        print(
          `imported ${sets.length} labelled pair sets from ${llmbar}: ${sets.reduce((n, s) => n + s.items, 0)} items, judges ${[...new Set(sets.flatMap((s) => s.judges))].join(', ')}`,
        );
      }
      if (intervals === 'bootstrap') await updateReports(store, { progress: true });
    } catch (e) {
      await store.close();
      if (!existed) removeDatabase(args.db);
      throw e;
    }
    await listen(store, { port, host: args.host, intervals, ...siteUrl(args['site-url']) });
  },
});

/** --site-url: an http(s) address, or nothing. */
function siteUrl(v: string | undefined): { siteUrl?: string } {
  if (v === undefined) return {};
  if (!/^https?:\/\/[^/\s]+(\/\S*)?$/.test(v))
    throw new UsageError(`--site-url expects an address like https://arena.example.org, got "${v}"`);
  return { siteUrl: v };
}
