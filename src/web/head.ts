// HEAD answered as its GET without the body: @hono/node-server's lightweight Response kept only the route's own
// headers of hono's HEAD (the middleware's were lost) and no length; this keeps them all and adds Content-Length.

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
