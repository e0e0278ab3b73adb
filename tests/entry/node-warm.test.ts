// The Node server's warm-up over its own socket (src/entry/node.ts warmOverHttp): one request through a real
// node:http server before the server says it listens, as a browser asks (gzip taken); it never fails.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { warmOverHttp } from '../../src/entry/node.ts';

describe('the warm-up over HTTP', () => {
  it('sends one request taking gzip and reads its whole answer; a port nobody listens on is no error', async () => {
    const asked: { url?: string; headers: IncomingHttpHeaders }[] = [];
    const server = createServer((req, res) => {
      asked.push({ url: req.url, headers: req.headers });
      res.writeHead(404, { 'Content-Type': 'text/html' }).end('x'.repeat(100_000));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    try {
      await warmOverHttp('0.0.0.0', port);
      expect(asked).toHaveLength(1);
      expect(asked[0]!.url).toBe('/.well-known/arena-warm-up');
      expect(asked[0]!.headers['accept-encoding']).toBe('gzip');
    } finally {
      await new Promise((r) => server.close(r));
    }
    await expect(warmOverHttp('127.0.0.1', port)).resolves.toBeUndefined();
  });
});
