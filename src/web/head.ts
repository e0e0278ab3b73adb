// HEAD answered as its GET without the body. Hono turns a HEAD into a GET and copies the GET's response with a
// null body, but @hono/node-server's lightweight Response then keeps only the headers the route itself gave:
// the middleware's (security headers, Vary) were lost, and no response said its length. This wrapper goes
// around the app's fetch (Node and Workers alike) and keeps every header, adding the GET's Content-Length.

type Fetch<A extends unknown[]> = (request: Request, ...rest: A) => Response | Promise<Response>;

/** `fetch`, with a HEAD answered by the same app's GET: same status and headers, its length, no body. */
export function answerHead<A extends unknown[]>(fetch: Fetch<A>): Fetch<A> {
  return async (request, ...rest) => {
    if (request.method !== 'HEAD') return fetch(request, ...rest);
    return withoutBody(await fetch(new Request(request, { method: 'GET' }), ...rest));
  };
}

async function withoutBody(res: Response): Promise<Response> {
  const headers = new Headers(res.headers);
  const bodyless = res.status === 204 || res.status === 304 || !res.body;
  if (bodyless || headers.has('content-length')) await res.body?.cancel();
  else headers.set('content-length', String((await res.arrayBuffer()).byteLength));
  return new Response(null, { status: res.status, statusText: res.statusText, headers });
}
