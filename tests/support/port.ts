import { createServer, type AddressInfo } from 'node:net';

/** A port on 127.0.0.1 that nothing listens on now (bound, then closed): free to take, or to find refused. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
