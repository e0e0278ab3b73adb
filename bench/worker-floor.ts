// The start-up floor for bench/site-worker.ts: a Worker that answers every request with a fixed text, with no
// module of its own. What `wrangler dev`'s workerd costs to start whatever the Worker is.
export default {
  fetch: (): Response => new Response('floor\n', { headers: { 'Content-Type': 'text/plain' } }),
};
