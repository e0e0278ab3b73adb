/**
 * The test server as its own process, its OpenAIServerOptions as JSON; prints "listening <url>" once ready:
 *   node --import tsx tests/support/openai-server-main.ts '{"latencyMs":50,"logFile":"/tmp/log.jsonl"}'
 */
import { startOpenAIServer, type OpenAIServerOptions } from './openai-server.ts';

const raw = process.argv[2] ?? '{}';
let opts: OpenAIServerOptions;
try {
  opts = JSON.parse(raw) as OpenAIServerOptions;
} catch (e) {
  process.stderr.write(`[openai-server] the options argument is not JSON: ${(e as Error).message}\n`);
  process.exit(1);
}
const srv = await startOpenAIServer(opts);
process.stdout.write(`listening ${srv.url}\n`);
const stop = () => {
  srv.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
