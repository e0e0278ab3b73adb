// One drizzle schema for better-sqlite3 (Node) and D1 (Workers). Migrations: `npm run db:generate`.
// JSON values are TEXT columns in JSON mode (drizzle writes JSON.stringify, reads JSON.parse): the Store
// hands out typed values, the SQL is plain TEXT (no migration).
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { JudgeSettings } from '../src/core/types.ts';
import type { CheckpointGeneration, RefreshRecord } from '../src/core/records.ts';

export const questions = sqliteTable('questions', {
  id: integer('id').primaryKey(),
  category: text('category').notNull(),
  /** JSON array of user turns */
  turns: text('turns', { mode: 'json' }).$type<string[]>().notNull(),
  /** JSON array of reference answers shipped in the question, or null */
  reference: text('reference', { mode: 'json' }).$type<string[]>(),
  source: text('source').notNull(),
  /** the labelled pair set this item belongs to (LLMBar's `Natural`, `Adversarial/Neighbor`, ...); null for tournament questions */
  set: text('pair_set'),
});

export const referenceAnswers = sqliteTable(
  'reference_answers',
  {
    source: text('source').notNull(),
    questionId: integer('question_id').notNull(),
    turns: text('turns', { mode: 'json' }).$type<string[]>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.source, t.questionId] })],
);

export const answers = sqliteTable(
  'answers',
  {
    model: text('model').notNull(),
    questionId: integer('question_id').notNull(),
    turns: text('turns', { mode: 'json' }).$type<string[]>().notNull(),
    answerId: text('answer_id'),
    source: text('source').notNull(),
  },
  (t) => [primaryKey({ columns: [t.model, t.questionId] })],
);

export const prompts = sqliteTable('prompts', {
  name: text('name').primaryKey(),
  type: text('type', { enum: ['pairwise', 'single'] }).notNull(),
  systemPrompt: text('system_prompt').notNull(),
  promptTemplate: text('prompt_template').notNull(),
  outputFormat: text('output_format').notNull(),
  category: text('category'),
  description: text('description'),
});

/** A played game: a stored fact. Identified by a hash of its content (see core/plan.ts gameIdentity). */
export const games = sqliteTable(
  'games',
  {
    id: text('id').primaryKey(),
    runId: text('run_id'),
    judge: text('judge').notNull(),
    /** JSON: temperature, max_tokens, ... */
    judgeSettings: text('judge_settings', { mode: 'json' }).$type<JudgeSettings>().notNull(),
    promptName: text('prompt_name').notNull(),
    questionId: integer('question_id').notNull(),
    category: text('category').notNull(),
    turn: integer('turn').notNull(),
    model1: text('model_1').notNull(),
    /** null in single grading */
    model2: text('model_2'),
    order: text('order', { enum: ['AB', 'BA'] }).notNull(),
    systemPrompt: text('system_prompt').notNull(),
    userPrompt: text('user_prompt').notNull(),
    reply: text('reply').notNull(),
    /** pairwise: model_1 | model_2 | tie | error; single: the score, or error */
    verdict: text('verdict').notNull(),
    parser: text('parser').notNull(),
    tokensIn: integer('tokens_in'),
    tokensOut: integer('tokens_out'),
    /** of tokens_in, those read from the server's prompt cache (billed at the cached rate); null when not reported */
    tokensCached: integer('tokens_cached'),
    /** of tokens_out, a reasoning model's hidden reasoning tokens (billed as output); null when not reported */
    tokensReasoning: integer('tokens_reasoning'),
    latencyMs: real('latency_ms'),
    createdAt: integer('created_at').notNull(),
    /** run | fastchat-import */
    source: text('source').notNull(),
    /** what the call cost in USD (price table of src/ops/prices.ts); null when unknown */
    cost: real('cost'),
    /** JSON {A, B, C}: the judge's probability of each verdict letter (local llama.cpp judges); null when unknown */
    verdictProbs: text('verdict_probs', { mode: 'json' }).$type<Record<string, number>>(),
    /** entropy in bits of verdict_probs (0 = certain, log2(3) = 1.585 = no idea) */
    entropy: real('entropy'),
    /**
     * SoftEnt-Cali in nats (a local judge's mean reply entropy minus its foundation model's, same tokens): lower =
     * more reliable; null unless the judge was asked for it (src/judges/llama-cpp/reliability.ts)
     */
    reliability: real('reliability'),
    /**
     * the verdict an imported judgment file recorded (as `verdict`), kept when `arena reparse` replaces the
     * verdict so that `--parser recorded` restores it; null for games played here
     */
    recordedVerdict: text('recorded_verdict'),
  },
  (t) => [
    index('games_judge').on(t.judge, t.questionId, t.turn),
    // every column but the text, in the order reports read them (games.facts): a report's read of a judge's games
    // walks this index alone, never the rows and their kilobytes of prompt
    index('games_facts').on(
      t.judge,
      t.createdAt,
      t.id,
      t.model2,
      t.source,
      t.questionId,
      t.turn,
      t.model1,
      t.order,
      t.verdict,
      t.judgeSettings,
      t.promptName,
      t.category,
      t.parser,
      t.runId,
      t.tokensIn,
      t.tokensOut,
      t.tokensCached,
      t.tokensReasoning,
      t.latencyMs,
      t.cost,
      t.verdictProbs,
      t.entropy,
      t.reliability,
      t.recordedVerdict,
    ),
  ],
);

/** Recorded pairwise outcomes: human votes and judges' combined verdicts (the HF human-judgment splits). */
export const votes = sqliteTable(
  'votes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    judge: text('judge').notNull(),
    voter: text('voter').notNull(),
    questionId: integer('question_id').notNull(),
    turn: integer('turn').notNull(),
    modelA: text('model_a').notNull(),
    modelB: text('model_b').notNull(),
    winner: text('winner', { enum: ['model_a', 'model_b', 'tie', 'inconsistent'] }).notNull(),
    /** the file it came from; re-importing a file replaces its votes */
    source: text('source').notNull(),
    line: integer('line').notNull(),
  },
  (t) => [
    index('votes_judge').on(t.judge),
    uniqueIndex('votes_source_line').on(t.source, t.line),
    // one vote per annotator, match and turn: a second POST of the same vote is counted once
    uniqueIndex('votes_annotator_match')
      .on(t.voter, t.questionId, t.turn, t.modelA, t.modelB)
      .where(sql`judge = 'annotators'`),
  ],
);

/** People invited to vote on /annotate (`arena annotators add`); the invite token is kept only as its SHA-256. */
export const annotators = sqliteTable(
  'annotators',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    /** hex SHA-256 of the one-time invite token */
    tokenHash: text('token_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    /** when the invite was redeemed (a second use is refused); null while unused */
    usedAt: integer('used_at'),
    /** when the annotator was revoked (every session stops at once); null while active */
    revokedAt: integer('revoked_at'),
    /** hex SHA-256 of the id of the one session the invite opened; null once logged out or revoked */
    sessionHash: text('session_hash'),
  },
  (t) => [uniqueIndex('annotators_name').on(t.name), uniqueIndex('annotators_token').on(t.tokenHash)],
);

/**
 * A match shown to one annotator: the side shown first (chosen at random when first shown, then kept), and the
 * answer once given (A, B, tie, bothbad or skip; null while pending). One row per annotator and match.
 */
export const annotations = sqliteTable(
  'annotations',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    annotatorId: integer('annotator_id').notNull(),
    questionId: integer('question_id').notNull(),
    turn: integer('turn').notNull(),
    model1: text('model_1').notNull(),
    model2: text('model_2').notNull(),
    /** AB: model_1 shown as A; BA: model_2 shown as A */
    order: text('order', { enum: ['AB', 'BA'] }).notNull(),
    shownAt: integer('shown_at').notNull(),
    choice: text('choice', { enum: ['A', 'B', 'tie', 'bothbad', 'skip'] }),
    reason: text('reason'),
    answeredAt: integer('answered_at'),
  },
  (t) => [uniqueIndex('annotations_match').on(t.annotatorId, t.questionId, t.turn, t.model1, t.model2)],
);

/**
 * What a copy published by `arena publish --out` or a refresh's `publish.sqlite` says of itself: the database it
 * was copied from (one row, written into the copy only). `arena serve --annotate` refuses such a copy: it is
 * replaced at the next publish, and votes written into it would be lost.
 */
export const publishedCopy = sqliteTable('published_copy', {
  /** the absolute path of the database it was copied from */
  source: text('source').notNull(),
  publishedAt: integer('published_at').notNull(),
});

/**
 * Fixed-window request counters of the annotate pages (per address, per annotator), shared by every process or
 * isolate on the database. A row lives until its window ends; expired rows are deleted as new windows start.
 */
export const rateLimits = sqliteTable(
  'rate_limits',
  {
    /** what is counted: `<limit>:<address or annotator id>` */
    key: text('key').primaryKey(),
    /** requests counted in the window */
    count: integer('count').notNull(),
    /** when the window ends (ms) */
    resetAt: integer('reset_at').notNull(),
  },
  (t) => [index('rate_limits_reset').on(t.resetAt)],
);

export const runs = sqliteTable('runs', {
  id: text('id').primaryKey(),
  startedAt: integer('started_at').notNull(),
  finishedAt: integer('finished_at'),
  judge: text('judge').notNull(),
  mode: text('mode').notNull(),
  /** JSON of the run's options */
  config: text('config', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  planned: integer('planned').notNull(),
  toPlay: integer('to_play').notNull(),
  played: integer('played').notNull().default(0),
  failed: integer('failed').notNull().default(0),
  tokensIn: integer('tokens_in').notNull().default(0),
  tokensOut: integer('tokens_out').notNull().default(0),
  /** running | done | interrupted | failed | budget */
  status: text('status').notNull(),
  /** USD spent by this run's games; null when no price is known */
  cost: real('cost'),
  /** "host:pid" of the process playing it (a running run whose process is gone is marked interrupted) */
  owner: text('owner'),
  /** when the running process last wrote its progress (ms since the epoch); a stale one is dead */
  heartbeatAt: integer('heartbeat_at'),
});

/** Games being played: a lease per game, so several processes on one database pay for each game once. */
export const leases = sqliteTable(
  'leases',
  {
    gameId: text('game_id').primaryKey(),
    /** the run holding it */
    owner: text('owner').notNull(),
    /** ms since the epoch; an expired lease may be taken by another run */
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('leases_owner').on(t.owner)],
);

/** Failed judge calls: attempts, never verdicts. */
export const attempts = sqliteTable('attempts', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  runId: text('run_id').notNull(),
  gameId: text('game_id').notNull(),
  judge: text('judge').notNull(),
  error: text('error').notNull(),
  at: integer('at').notNull(),
  /** a failed call that was billed (reasoning that used the whole allowance): its usage and USD, else null */
  tokensIn: integer('tokens_in'),
  tokensOut: integer('tokens_out'),
  cost: real('cost'),
});

/** One `arena refresh` (src/ops/refresh.ts): status ok | degraded | drift | budget | failed | interrupted | running. */
export const refreshes = sqliteTable('refreshes', {
  id: text('id').primaryKey(),
  startedAt: integer('started_at').notNull(),
  finishedAt: integer('finished_at'),
  status: text('status').notNull(),
  /** the config file's path and JSON */
  config: text('config', { mode: 'json' }).$type<RefreshRecord['config']>().notNull(),
  /** JSON: imports, plans, runs, per-judge rates, canary, cost */
  summary: text('summary', { mode: 'json' }).$type<RefreshRecord['summary']>().notNull(),
  /** JSON array of reasons the refresh is degraded (error/inconsistency jumps, drift); null when healthy */
  degraded: text('degraded', { mode: 'json' }).$type<string[]>(),
  cost: real('cost').notNull().default(0),
  /** when the running refresh last said it is alive (ms); a running refresh with a stale one was killed */
  heartbeatAt: integer('heartbeat_at'),
});

/** OpenAI Batch API jobs (src/ops/batch.ts): the batch id is persisted so a restarted refresh resumes polling. */
export const batches = sqliteTable('batches', {
  id: text('id').primaryKey(),
  refreshId: text('refresh_id'),
  judge: text('judge').notNull(),
  inputFileId: text('input_file_id').notNull(),
  /** submitting | submitted | imported | failed | expired | cancelled | output-gone (completed, its results 404) */
  status: text('status').notNull(),
  /** JSON array of the game ids in the batch */
  gameIds: text('game_ids', { mode: 'json' }).$type<string[]>().notNull(),
  createdAt: integer('created_at').notNull(),
  finishedAt: integer('finished_at'),
  cost: real('cost'),
});

/** Checkpoints of a fine-tuning run (src/ops/checkpoints.ts); each one's answers are stored as model `model`. */
export const checkpoints = sqliteTable(
  'checkpoints',
  {
    series: text('series').notNull(),
    name: text('name').notNull(),
    step: integer('step').notNull(),
    model: text('model').notNull(),
    /** the model every checkpoint is judged against (null on rows written before it was recorded) */
    baseline: text('baseline'),
    /** JSON: how the answers were made (imported file, or endpoint / GGUF + LoRA with per-category temperatures) */
    generation: text('generation', { mode: 'json' }).$type<CheckpointGeneration>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.series, t.name] })],
);

/**
 * What the site shows, computed when the games change (src/reports/site/stored.ts): one row per view and its
 * parameters, with the digest of the data it was computed from and the format version of its JSON body.
 */
export const reports = sqliteTable(
  'reports',
  {
    /** the family of figures: leaderboard, matrix, judge-board, ... */
    view: text('view').notNull(),
    /** the view's parameters (judge, turn, category, options), '' when it takes none */
    params: text('params').notNull(),
    /** the digest of the games, votes and answers it was computed from */
    digest: text('digest').notNull(),
    /** the format of `body` (REPORT_VERSION); a row of another version is recomputed */
    version: integer('version').notNull(),
    /** JSON */
    body: text('body').notNull(),
    builtAt: integer('built_at').notNull(),
    /** how long computing it took (ms) */
    ms: integer('ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.view, t.params] })],
);

/**
 * The site's pages rendered on the write path (src/web/pages.ts), served as these bytes: one row per page, keyed by
 * the build, the options and its canonical URL, tied to the state of the reports it was rendered from.
 */
export const pages = sqliteTable('pages', {
  /** the build id, the options that change the HTML and the canonical URL, as JSON */
  key: text('key').primaryKey(),
  /** the body of the reports' `_state` row when it was rendered: the page is served only while that is current */
  state: text('state').notNull(),
  /** JSON: the headers its route set and the body */
  body: text('body').notNull(),
  builtAt: integer('built_at').notNull(),
});
