// /annotate: the blind voting page for a team's own annotators, on only when the operator turns it on. One match
// at a time, model names hidden, the side shown first random and recorded; votes are stored as judge `annotators`.
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { csrf } from 'hono/csrf';
import { CHOICES, inviteHash, sessionHash, type AnnotationChoice } from '../../core/annotate.ts';
import { matchKey } from '../../core/outcomes.ts';
import type { MatchItem } from '../../core/types.ts';
import { annotateQueue, matchTexts, type QueueMode } from '../../reports/annotate-queue.ts';
import type { AnnotationRecord, AnnotatorRecord } from '../../storage/annotator-store.ts';
import type { Store } from '../../storage/store.ts';
import type { ResultCache } from '../result-cache.ts';
import { page } from '../site.ts';
import { assets } from '../views.ts';
import { DEFAULT_LIMITS, RateLimiter, type Limits } from './rate-limit.ts';
import { csrfMatches, endSession, newSessionId, readSession, startSession, type Session } from './session.ts';

export interface AnnotateOptions {
  /** signs the session cookies (at least 32 characters) */
  secret: string;
  /** where the queue starts: the matches the judges disagree on most (default), or a uniform random order */
  queue?: QueueMode;
  /**
   * the client's address, for the per-address limits (Node: the socket's, or with --trust-proxy N the
   * X-Forwarded-For entry N from the right; Workers: CF-Connecting-IP)
   */
  address?: (c: Context) => string | undefined;
  limits?: Partial<Limits>;
  /** the clock (ms); tests move it */
  now?: () => number;
}

const CHOICE_SET = new Set<string>([...CHOICES, 'skip']);
const MAX_REASON = 2000;

/** The secret's minimum length: a shorter one is refused when the app is made. */
export const MIN_SECRET = 32;
/** The fewest distinct characters a secret may have (a random hex secret of 32 characters has about 14). */
const MIN_DISTINCT = 10;

/**
 * Why a session secret is too weak to sign with (too short, too few distinct characters, or a shorter string
 * repeated), in a few words; undefined when it will do.
 */
export function secretProblem(secret: string): string | undefined {
  if (secret.length < MIN_SECRET) return `must be at least ${MIN_SECRET} characters long`;
  const distinct = new Set(secret).size;
  if (distinct < MIN_DISTINCT)
    return `has only ${distinct} distinct characters (at least ${MIN_DISTINCT}); use a random one, e.g. \`openssl rand -hex 32\``;
  // the shortest period (Knuth-Morris-Pratt's prefix function): "abcabc..." repeats "abc"
  const k = [0];
  for (let i = 1; i < secret.length; i++) {
    let j = k[i - 1]!;
    while (j > 0 && secret[i] !== secret[j]) j = k[j - 1]!;
    k.push(secret[i] === secret[j] ? j + 1 : j);
  }
  const period = secret.length - k.at(-1)!;
  if (period * 2 <= secret.length)
    return `repeats its first ${period} characters; use a random one, e.g. \`openssl rand -hex 32\``;
  return undefined;
}

type Options = AnnotateOptions & { store: Store; cache: ResultCache; siteUrl?: string };

export function annotateRoutes(app: Hono, o: Options): void {
  const weak = secretProblem(o.secret);
  if (weak) throw new Error(`[annotate] the session secret ${weak}`);
  const x = context(o);
  guard(app, x);
  loginRoutes(app, x);
  voteRoutes(app, x);
}

/** What the annotate routes share: the store, the clock, the limiters, the session settings and the page frame. */
function context(o: Options) {
  const now = o.now ?? (() => Date.now());
  const limits = { ...DEFAULT_LIMITS, ...o.limits };
  const html = (c: Context, status: 200 | Refusal, view: string, title: string, d: object) =>
    c.html(
      page(c, view, title, { annotateJs: assets.path('annotate.js'), ...d }, o.siteUrl),
      status,
    ) as Response;
  const refuse = (c: Context, status: Refusal, message: string) =>
    html(c, status, 'error', status === 429 ? 'Slow down' : `Error ${status}`, { status, message });
  return {
    store: o.store,
    cache: o.cache,
    queue: o.queue ?? 'review',
    now,
    perAddress: new RateLimiter(o.store.limits, 'address', limits.address),
    perLogin: new RateLimiter(o.store.limits, 'login', limits.login),
    perVoter: new RateLimiter(o.store.limits, 'votes', limits.votes),
    sessions: { secret: o.secret, now, ...(o.siteUrl ? { siteUrl: o.siteUrl } : {}) },
    address: (c: Context) => o.address?.(c) ?? 'unknown',
    html,
    refuse,
    /** 429 with Retry-After: a limit says to wait `wait` seconds */
    slowDown: (c: Context, wait: number, message: string) => {
      c.header('Retry-After', String(wait));
      return refuse(c, 429, `${message}; try again in ${wait} s.`);
    },
  };
}
type Refusal = 400 | 401 | 403 | 404 | 409 | 429;
type Ctx = ReturnType<typeof context>;

/**
 * Before every annotate route: no-store and noindex, the request limit (per annotator once logged in, so that
 * annotators behind one address do not share it; else per client address), hono/csrf, a bounded body.
 */
function guard(app: Hono, x: Ctx): void {
  // '/annotate/*' matches /annotate itself too
  const path = '/annotate/*';
  app.use(path, async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
    c.header('X-Robots-Tag', 'noindex');
  });
  app.use(path, async (c, next) => {
    // a signed session names its annotator (whether it is still open is the route's to check)
    const s = await readSession(c, x.sessions);
    const wait = await x.perAddress.hit(s ? `annotator:${s.annotatorId}` : x.address(c), x.now());
    return wait
      ? x.slowDown(c, wait, `Too many requests from ${s ? 'your session' : 'your address'}`)
      : next();
  });
  app.use(path, csrf());
  app.use(
    path,
    bodyLimit({ maxSize: 16 * 1024, onError: (c) => x.refuse(c, 400, 'The form is too large.') }),
  );
}

/** The signed-in annotator, still active and the session still its own; else undefined (the cookie cleared). */
async function who(c: Context, x: Ctx): Promise<{ s: Session; a: AnnotatorRecord } | undefined> {
  const s = await readSession(c, x.sessions);
  const a = s && (await x.store.annotators.session(s.annotatorId, sessionHash(s.sid)));
  if (s && a) return { s, a };
  if (s) endSession(c, x.sessions);
  return undefined;
}

const signedOut = (c: Context, x: Ctx) =>
  x.refuse(c, 401, 'You are not logged in (or your session ended). Open your invite link to log in.');

/** Logging in with an invite, and out. */
function loginRoutes(app: Hono, x: Ctx): void {
  app.get('/annotate/login', (c) => {
    const token = c.req.query('token') ?? '';
    return x.html(c, 200, 'annotate-login', 'Log in to annotate', { token: token.slice(0, 200) });
  });

  app.post('/annotate/login', async (c) => {
    const wait = await x.perLogin.hit(x.address(c), x.now());
    if (wait) return x.slowDown(c, wait, 'Too many login attempts');
    const token = (await c.req.parseBody()).token;
    const sid = newSessionId();
    const a =
      typeof token === 'string' && token.length > 0 && token.length <= 200
        ? await x.store.annotators.redeem(inviteHash(token), x.now(), sessionHash(sid))
        : undefined;
    if (!a)
      return x.refuse(
        c,
        403,
        'This invite is not valid: it was used already, revoked, or never issued. Ask for a new one.',
      );
    await startSession(c, a.id, sid, x.sessions);
    return c.redirect('/annotate', 303);
  });

  app.post('/annotate/logout', async (c) => {
    const me = await who(c, x);
    if (!me) return signedOut(c, x);
    if (!(await csrfMatches(me.s, (await c.req.parseBody()).csrf)))
      return x.refuse(c, 403, 'This form is not from your session (CSRF token missing or wrong).');
    // on the server: a copy of the cookie is refused from now on
    await x.store.annotators.endSession(me.a.id, sessionHash(me.s.sid));
    endSession(c, x.sessions);
    return c.redirect('/annotate/login', 303);
  });
}

/** The blind match page and its vote. */
function voteRoutes(app: Hono, x: Ctx): void {
  app.get('/annotate', async (c) => {
    const me = await who(c, x);
    if (!me) return signedOut(c, x);
    const shown = await x.store.annotators.shown(me.a.id);
    await x.cache.fresh();
    const queue = await x.cache.get(`annotate:queue:${x.queue}`, () => annotateQueue(x.store, x.queue));
    const next = await nextAnnotation(x.store, me.a.id, shown, queue, x.now());
    const answered = shown.filter((n) => n.choice !== null);
    const progress = {
      voted: answered.filter((n) => n.choice !== 'skip').length,
      skipped: answered.filter((n) => n.choice === 'skip').length,
      total: queue.length,
    };
    const texts = next && (await matchTexts(x.store, next));
    const [first, second] = next?.order === 'BA' ? ['answer2', 'answer1'] : ['answer1', 'answer2'];
    return x.html(c, 200, 'annotate', 'Annotate', {
      name: me.a.name,
      csrf: me.s.sid,
      progress,
      match:
        next && texts
          ? {
              id: next.id,
              turn: next.turn,
              category: texts.category,
              turns: texts.turns,
              a: texts[first as 'answer1'],
              b: texts[second as 'answer1'],
              reference: texts.reference,
            }
          : null,
    });
  });

  app.post('/annotate/vote', async (c) => {
    const me = await who(c, x);
    if (!me) return signedOut(c, x);
    const form = await c.req.parseBody();
    if (!(await csrfMatches(me.s, form.csrf)))
      return x.refuse(
        c,
        403,
        'This form is not from your session (CSRF token missing or wrong). Reload the page.',
      );
    const wait = await x.perVoter.hit(String(me.a.id), x.now());
    if (wait) return x.slowDown(c, wait, 'Too many votes in a minute');
    const choice = form.choice;
    if (typeof choice !== 'string' || !CHOICE_SET.has(choice))
      return x.refuse(c, 400, 'The choice must be A, B, tie, bothbad or skip.');
    const id = typeof form.match === 'string' && /^\d{1,15}$/.test(form.match) ? Number(form.match) : NaN;
    const n = Number.isSafeInteger(id) ? await x.store.annotators.annotation(id) : undefined;
    if (!n || n.annotatorId !== me.a.id) return x.refuse(c, 404, 'No such match in your queue.');
    const reason =
      typeof form.reason === 'string' && form.reason.trim() ? form.reason.trim().slice(0, MAX_REASON) : null;
    const answer = { annotation: n, choice: choice as AnnotationChoice, reason, at: x.now() };
    const stored = await x.store.annotators.answer(answer);
    if (stored) x.cache.clear();
    // a second vote on the same match counts nothing, the first being stored; the annotator simply goes on
    if (stored || (await x.store.annotators.annotation(n.id))?.choice) return c.redirect('/annotate', 303);
    // still pending: the voter has a vote on this match already (imported); set it aside, say so
    await x.store.annotators.answer({ ...answer, choice: 'skip', reason: null });
    return x.refuse(
      c,
      409,
      'You have a vote on this match already (imported from a file): this one was not stored. Reload for the next match.',
    );
  });
}

/**
 * The annotator's pending match (shown before, not answered) while it is still in the queue, else the first queued
 * match never shown to them. A pending match out of the queue (a model pruned since) cannot be answered: passed over.
 */
async function nextAnnotation(
  store: Store,
  annotatorId: number,
  shown: AnnotationRecord[],
  queue: MatchItem[],
  at: number,
): Promise<AnnotationRecord | undefined> {
  const queued = new Set(queue.map(matchKey));
  const pending = shown.find((n) => n.choice === null && queued.has(matchKey(n)));
  if (pending) return pending;
  const seen = new Set(shown.map(matchKey));
  const m = queue.find((q) => !seen.has(matchKey(q)));
  if (!m) return undefined;
  // which answer comes first: a fair coin per annotator and match, recorded with the annotation
  const order = crypto.getRandomValues(new Uint8Array(1))[0]! & 1 ? 'BA' : 'AB';
  const { questionId, turn, model1, model2 } = m;
  return store.annotators.show(annotatorId, { questionId, turn, model1, model2 }, order, at);
}
