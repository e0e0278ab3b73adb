/**
 * Secrets out of error texts before they are stored (and published) or printed: a server may echo the API key
 * back in an error body. The known secrets go, and so does anything shaped like a key or a bearer token.
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
 * A judge's reply with every configured secret replaced by `[redacted]`, and how many were: only the exact
 * secrets, since a reply's own words ("Basic arithmetic", "sk-learn") are its content.
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

/** A server as messages and records name it: its base URL without credentials, query or fragment. */
export function serverName(baseURL: string): string {
  try {
    const u = new URL(baseURL);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(a base URL that does not parse)';
  }
}
