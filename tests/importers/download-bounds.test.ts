// A mirror that sends far more than the pinned file (issue #12, item 10): the download stops as soon as
// it passes the pinned size, instead of holding the whole body before the hash check.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { downloadMtbench, MTBENCH_RELEASE } from '../../src/importers/download.ts';
import { tmpDir } from '../support/cli.ts';

let server: Server | undefined;
afterEach(
  () => new Promise<void>((r) => (server ? (server.closeAllConnections(), server.close(() => r())) : r())),
);

/** serves `mb` MiB of filler for every path, chunked or with a content-length; counts the bytes it wrote */
async function hugeMirror(mb: number, declare: boolean) {
  const sent = { bytes: 0 };
  server = createServer((req, res) => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let left = (mb * 1024 * 1024) / chunk.length;
    res.writeHead(200, declare ? { 'content-length': String(mb * 1024 * 1024) } : {});
    res.on('error', () => {});
    const more = () => {
      while (left-- > 0 && !res.destroyed) {
        sent.bytes += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/q.jsonl`, sent };
}

describe('a download is stopped at its pinned size', () => {
  const file = MTBENCH_RELEASE.find((f) => f.path === 'question.jsonl')!;
  for (const declare of [false, true])
    it(`a 300 MiB body ${declare ? 'with' : 'without'} a content-length: an error naming the file and sizes, after at most a few MiB`, async () => {
      const { url, sent } = await hugeMirror(300, declare);
      const cache = tmpDir('arena-dl-');
      const t0 = Date.now();
      const rss0 = process.memoryUsage().rss;
      await expect(
        downloadMtbench({ files: [file], urls: { 'question.jsonl': url }, cacheDir: cache, retries: 0 }),
      ).rejects.toThrow(
        new RegExp(
          `question\\.jsonl \\(from ${url.replace(/[.?]/g, '\\$&')}\\): content does not match the pinned release: size/hash mismatch \\(the server sent .* bytes, the pinned file has ${file.size}`,
        ),
      );
      expect(Date.now() - t0).toBeLessThan(20_000);
      await new Promise((r) => setTimeout(r, 200));
      // the server got to write little more than the pinned size (socket buffers), not 300 MiB
      expect(sent.bytes).toBeLessThan(32 * 1024 * 1024);
      expect(process.memoryUsage().rss - rss0).toBeLessThan(200 * 1024 * 1024);
    });
});
