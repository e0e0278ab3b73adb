// The bare-client baseline of bench/run.ts, as its own process: read the planned prompts (JSONL of
// {system, user}) and send them as chat completions from plain node:http with a keep-alive agent, at a fixed
// concurrency, with no SDK, no retry and no database. Its wall time, CPU and peak RSS (the whole process,
// start included) are what the machine and the server allow right now.
//   node bench/bare-client.mjs URL PROMPTS.jsonl CONCURRENCY
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const [base, file, conc] = process.argv.slice(2);
const prompts = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const agent = new Agent({ keepAlive: true });
const url = new URL(`${base}/chat/completions`);
const one = (p) =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({
      model: 'judge',
      messages: [
        { role: 'system', content: p.system },
        { role: 'user', content: p.user },
      ],
      n: 1,
      temperature: 0,
      max_tokens: 2048,
    });
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200 && JSON.parse(Buffer.concat(chunks).toString()).choices[0].message.content
            ? resolve()
            : reject(new Error(`bare client: HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
let next = 0;
const worker = async () => {
  while (next < prompts.length) await one(prompts[next++]);
};
await Promise.all(Array.from({ length: Number(conc) }, worker));
agent.destroy();
process.stdout.write(`${prompts.length} calls\n`);
