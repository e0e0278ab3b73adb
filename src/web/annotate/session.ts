// The annotator's session: a signed JWT (HS256) in an HttpOnly, SameSite=Lax cookie naming the annotator and a random
// session id, which is also the CSRF token of the session's forms. The routes re-read the annotator's row (it holds
// the session's hash) on every request, so logout and revocation end a session on the server at once.
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { sign, verify } from 'hono/jwt';
import { timingSafeEqual } from 'hono/utils/buffer';

const SESSION_COOKIE = 'arena_annotate';
/** How long a login lasts. */
const SESSION_SECONDS = 8 * 3600;

export interface Session {
  annotatorId: number;
  /** random per login; the CSRF token of the session's forms */
  sid: string;
  exp: number;
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

/** A new session id: 16 random bytes, hex (Web Crypto: the same on Node and Workers). */
export const newSessionId = (): string => hex(crypto.getRandomValues(new Uint8Array(16)));

export interface SessionOptions {
  secret: string;
  /** the site's public address: an https one makes the cookie Secure behind a proxy that speaks http */
  siteUrl?: string;
  now?: () => number;
}

/** The cookie's attributes: Secure when the request or the site's address is https. */
const cookie = (c: Context, o: SessionOptions) => ({
  path: '/annotate',
  httpOnly: true,
  secure: new URL(c.req.url).protocol === 'https:' || (o.siteUrl ?? '').startsWith('https:'),
  sameSite: 'Lax' as const,
});

/** Log in: sign the session `sid` (the one the store now holds for the annotator) and set its cookie. */
export async function startSession(
  c: Context,
  annotatorId: number,
  sid: string,
  o: SessionOptions,
): Promise<Session> {
  const now = Math.floor((o.now?.() ?? Date.now()) / 1000);
  const s: Session = { annotatorId, sid, exp: now + SESSION_SECONDS };
  const token = await sign({ sub: String(annotatorId), sid: s.sid, iat: now, exp: s.exp }, o.secret, 'HS256');
  setCookie(c, SESSION_COOKIE, token, { ...cookie(c, o), maxAge: SESSION_SECONDS });
  return s;
}

/** The request's session when its cookie carries a token signed with the secret and not expired; else undefined. */
export async function readSession(c: Context, o: SessionOptions): Promise<Session | undefined> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token || token.length > 4096) return undefined;
  try {
    const p = await verify(token, o.secret, { alg: 'HS256', exp: true, iat: false, nbf: false });
    const id = Number(p.sub);
    if (!Number.isSafeInteger(id) || id <= 0 || typeof p.sid !== 'string' || typeof p.exp !== 'number')
      return undefined;
    // the clock the app is given (tests move it); hono/jwt has checked exp against the real one
    if ((o.now?.() ?? Date.now()) / 1000 >= p.exp) return undefined;
    return { annotatorId: id, sid: p.sid, exp: p.exp };
  } catch {
    return undefined; // forged, altered, malformed or expired
  }
}

export function endSession(c: Context, o: SessionOptions): void {
  deleteCookie(c, SESSION_COOKIE, cookie(c, o));
}

/** Whether a form's CSRF token is the session's (constant time). */
export async function csrfMatches(s: Session, given: unknown): Promise<boolean> {
  if (typeof given !== 'string' || given.length !== s.sid.length) return false;
  return timingSafeEqual(given, s.sid);
}
