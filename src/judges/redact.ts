/**
 * Secrets out of error texts before they are stored (table `attempts`, which `arena publish` ships) or
 * printed: a server may echo the API key back in an error body ("Incorrect API key provided: sk-...").
 * The known secrets are replaced wherever they occur, and so is anything shaped like a key or a bearer token.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  return redactReply(text, secrets)
    .text.replace(/\b(sk|rk|pk)-[A-Za-z0-9_*.-]{6,}/g, '$1-[redacted]')
    .replace(/\b(Bearer|Basic)\s+(?!\[redacted\])[^\s"',;}]+/gi, '$1 [redacted]');
}

/** The warning a job prints when a judge's server put the API key in `n` places of its replies. */
export function keyInRepliesWarning(n: number): string {
  return `warning: the judge's server put the API key in ${n} place(s) of its replies; it was replaced by [redacted] before they were stored`;
}

/**
 * A judge's reply with every configured secret (an API key, and so `Bearer <key>`) replaced by `[redacted]`,
 * and how many were replaced. Only the exact secrets: a reply's own words ("Basic arithmetic", "sk-learn")
 * are its content and stay as they are. A server that echoes the request's Authorization header into its
 * reply would otherwise have the key stored with the game, published and shown on the site.
 */
export function redactReply(
  text: string,
  secrets: readonly (string | undefined)[],
): { text: string; redactions: number } {
  let out = text;
  let redactions = 0;
  for (const s of secrets) {
    if (!s || s.length < 4) continue;
    const parts = out.split(s);
    redactions += parts.length - 1;
    out = parts.join('[redacted]');
  }
  return { text: out, redactions };
}

/**
 * A server as messages and records name it: its base URL without credentials (user:password@, query, fragment),
 * which a URL may carry and a log, an error line or a published run record must not.
 */
export function serverName(baseURL: string): string {
  try {
    const u = new URL(baseURL);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(a base URL that does not parse)';
  }
}
