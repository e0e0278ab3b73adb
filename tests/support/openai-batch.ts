/**
 * The OpenAI Batch API for the test server (startOpenAIServer's `batch` option): /v1/files and /v1/batches. A batch
 * stays `in_progress` until `completeAfterMs` and `completeAfterPolls` have passed; the next GET answers every line
 * as the chat endpoint would, logged as `/v1/batches#line` with its prompt's hash and billed tokens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface BatchServerOptions {
  /** how long a batch takes (default 0: complete on the first poll) */
  completeAfterMs?: number;
  /** and not before this many GETs of the batch (default 0), so a test can place a restart deterministically */
  completeAfterPolls?: number;
  /**
   * requests whose custom_id ends with one of `idSuffixes` fail every time (e.g. 400 context_length_exceeded):
   * their lines go to the batch's error file (`error_file_id`), never to the output file
   */
  failRequests?: { idSuffixes: string[]; status: number; code: string; message: string };
  /** the first this many batches end `failed`, with `errors`, and no output file */
  failBatches?: number;
  /** OpenAI's limits on one batch's input (default 50,000 requests and 200 MB): over them the batch fails */
  maxRequests?: number;
  maxFileBytes?: number;
  /** output lines in another order than the input's (OpenAI does not keep the order) */
  shuffle?: boolean;
  /** the output file repeats its first request with another answer */
  conflictingDuplicate?: boolean;
}

export interface BatchContext {
  /**
   * answer one chat request body as POST /v1/chat/completions would (status 200); `authorization`: the header of
   * the request that completed the batch (a server echoing it puts it in the reply, as the chat endpoint does)
   */
  complete(
    body: { model: string; messages: { role: string; content: string }[] },
    n: number,
    authorization?: string,
  ): { body: unknown; hash: string };
  record(e: {
    n: number;
    at: number;
    method: string;
    path: string;
    hash?: string;
    status: number;
    tokensIn?: number;
    tokensOut?: number;
  }): void;
  send(res: ServerResponse, status: number, body: unknown): void;
  readBody(req: IncomingMessage): Promise<string>;
}

interface FileRec {
  id: string;
  filename: string;
  purpose: string;
  content: string;
  created_at: number;
}

interface BatchRec {
  id: string;
  input_file_id: string;
  output_file_id: string | null;
  status: string;
  created_at: number;
  completed_at: number | null;
  endpoint: string;
  completion_window: string;
  metadata: Record<string, string> | null;
  request_counts: { total: number; completed: number; failed: number };
}

/** The routes; returns false when the path is not one of them. */
export function batchRoutes(o: BatchServerOptions, ctx: BatchContext) {
  const files = new Map<string, FileRec>();
  const batches = new Map<string, BatchRec>();
  let seq = 0;
  let lineN = 0;
  const fileObject = (f: FileRec) => ({
    id: f.id,
    object: 'file',
    bytes: Buffer.byteLength(f.content),
    created_at: f.created_at,
    filename: f.filename,
    purpose: f.purpose,
    status: 'processed',
  });
  const batchObject = (b: BatchRec) => ({ object: 'batch', errors: null, error_file_id: null, ...b });
  let created = 0;
  const fileOf = (content: string, name: string): FileRec => {
    const f: FileRec = {
      id: `file-out-${++seq}`,
      filename: name,
      purpose: 'batch_output',
      content,
      created_at: Math.floor(Date.now() / 1000),
    };
    files.set(f.id, f);
    return f;
  };
  /** the batch fails as OpenAI's validation fails one: status `failed`, `errors.data`, no output */
  const fail = (b: BatchRec, code: string, message: string) => {
    Object.assign(b, { status: 'failed', failed_at: Math.floor(Date.now() / 1000) });
    (b as BatchRec & { errors: unknown }).errors = {
      object: 'list',
      data: [{ code, message, param: null, line: null }],
    };
  };

  const finish = (b: BatchRec, authorization?: string) => {
    const input = files.get(b.input_file_id)!;
    const lines = input.content.split('\n').filter((l) => l.trim());
    if ((b as BatchRec & { n: number }).n <= (o.failBatches ?? 0))
      return fail(b, 'invalid_request', 'The batch could not be processed.');
    if (lines.length > (o.maxRequests ?? 50_000))
      return fail(b, 'too_many_requests', `A batch may hold at most ${o.maxRequests ?? 50_000} requests.`);
    if (Buffer.byteLength(input.content) > (o.maxFileBytes ?? 200_000_000))
      return fail(
        b,
        'file_too_large',
        `The input file is larger than ${o.maxFileBytes ?? 200_000_000} bytes.`,
      );
    const out: string[] = [];
    const errors: string[] = [];
    for (const line of lines) {
      const r = JSON.parse(line) as {
        custom_id: string;
        body: { model: string; messages: { role: string; content: string }[] };
      };
      const f = o.failRequests;
      if (f && f.idSuffixes.some((x) => r.custom_id.endsWith(x))) {
        ++lineN;
        errors.push(
          JSON.stringify({
            id: `batch_req_${lineN}`,
            custom_id: r.custom_id,
            response: {
              status_code: f.status,
              request_id: `req_${lineN}`,
              body: {
                error: { message: f.message, type: 'invalid_request_error', param: null, code: f.code },
              },
            },
            error: null,
          }),
        );
        b.request_counts.failed++;
        continue;
      }
      const { body, hash } = ctx.complete(r.body, ++lineN, authorization);
      const usage = (body as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
      ctx.record({
        n: 0,
        at: performance.timeOrigin + performance.now(),
        method: 'BATCH',
        path: '/v1/batches#line',
        hash,
        status: 200,
        tokensIn: usage.prompt_tokens,
        tokensOut: usage.completion_tokens,
      });
      out.push(
        JSON.stringify({
          id: `batch_req_${lineN}`,
          custom_id: r.custom_id,
          response: { status_code: 200, request_id: `req_${lineN}`, body },
          error: null,
        }),
      );
      b.request_counts.completed++;
    }
    if (o.conflictingDuplicate && out.length) {
      const first = JSON.parse(out[0]!) as {
        response: { body: { choices: { message: { content: string } }[] } };
      };
      first.response.body.choices[0]!.message.content += ' On reflection: [[C]]';
      out.push(JSON.stringify(first));
    }
    if (o.shuffle) out.reverse();
    if (out.length) b.output_file_id = fileOf(`${out.join('\n')}\n`, `${b.id}_output.jsonl`).id;
    if (errors.length)
      (b as BatchRec & { error_file_id: string }).error_file_id = fileOf(
        `${errors.join('\n')}\n`,
        `${b.id}_error.jsonl`,
      ).id;
    b.status = 'completed';
    b.completed_at = Math.floor(Date.now() / 1000);
  };

  return (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    const at = performance.timeOrigin + performance.now();
    const method = req.method ?? '';
    const log = (status: number) => ctx.record({ n: 0, at, method, path, status });
    if (method === 'POST' && path === '/v1/files') {
      void readRaw(req).then(async (raw) => {
        const form = await new Request('http://local/', {
          method: 'POST',
          headers: { 'content-type': req.headers['content-type'] ?? '' },
          body: new Uint8Array(raw),
        }).formData();
        const file = form.get('file');
        if (!file || typeof file === 'string') {
          log(400);
          return ctx.send(res, 400, {
            error: { message: 'file is required', type: 'invalid_request_error' },
          });
        }
        const f: FileRec = {
          id: `file-${++seq}`,
          filename: file.name,
          purpose: String(form.get('purpose') ?? ''),
          content: await file.text(),
          created_at: Math.floor(Date.now() / 1000),
        };
        files.set(f.id, f);
        log(200);
        ctx.send(res, 200, fileObject(f));
      });
      return true;
    }
    const content = /^\/v1\/files\/([^/]+)\/content$/.exec(path);
    if (method === 'GET' && content) {
      const f = files.get(content[1]!);
      log(f ? 200 : 404);
      if (!f) ctx.send(res, 404, { error: { message: 'no such file', type: 'invalid_request_error' } });
      else {
        res.writeHead(200, {
          'content-type': 'application/jsonl',
          'content-length': Buffer.byteLength(f.content),
        });
        res.end(f.content);
      }
      return true;
    }
    // a file deleted (or past the provider's retention): its content is a 404 from then on
    const del = /^\/v1\/files\/([^/]+)$/.exec(path);
    if (method === 'DELETE' && del) {
      const deleted = files.delete(del[1]!);
      log(deleted ? 200 : 404);
      if (deleted) ctx.send(res, 200, { id: del[1], object: 'file', deleted: true });
      else ctx.send(res, 404, { error: { message: 'no such file', type: 'invalid_request_error' } });
      return true;
    }
    if (method === 'POST' && path === '/v1/batches') {
      void ctx.readBody(req).then((raw) => {
        const body = JSON.parse(raw) as {
          input_file_id: string;
          endpoint: string;
          completion_window: string;
          metadata?: Record<string, string>;
        };
        const input = files.get(body.input_file_id);
        if (!input) {
          log(400);
          return ctx.send(res, 400, {
            error: { message: `no such file ${body.input_file_id}`, type: 'invalid_request_error' },
          });
        }
        const b: BatchRec = {
          id: `batch_${++seq}`,
          input_file_id: input.id,
          output_file_id: null,
          status: 'in_progress',
          created_at: Math.floor(Date.now() / 1000),
          completed_at: null,
          endpoint: body.endpoint,
          completion_window: body.completion_window,
          metadata: body.metadata ?? null,
          request_counts: {
            total: input.content.split('\n').filter((l) => l.trim()).length,
            completed: 0,
            failed: 0,
          },
        };
        (b as BatchRec & { createdMs: number }).createdMs = Date.now();
        (b as BatchRec & { n: number }).n = ++created;
        batches.set(b.id, b);
        log(200);
        ctx.send(res, 200, batchObject(b));
      });
      return true;
    }
    if (method === 'GET' && path === '/v1/batches') {
      // newest first, a page of `limit` (default 20, 1..100) after the batch `after`, and whether more follow
      log(200);
      const q = new URL(req.url ?? '/', 'http://local').searchParams;
      const limit = Math.min(100, Math.max(1, Number(q.get('limit') ?? 20) || 20));
      const all = [...batches.values()].reverse();
      const after = q.get('after');
      const from = after === null ? 0 : all.findIndex((b) => b.id === after) + 1;
      const data = all.slice(from, from + limit).map(visible);
      ctx.send(res, 200, {
        object: 'list',
        data,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
        has_more: from + limit < all.length,
      });
      return true;
    }
    const one = /^\/v1\/batches\/([^/]+)$/.exec(path);
    if (method === 'GET' && one) {
      const b = batches.get(one[1]!);
      log(b ? 200 : 404);
      if (!b) {
        ctx.send(res, 404, { error: { message: 'no such batch', type: 'invalid_request_error' } });
        return true;
      }
      const polls = ((b as BatchRec & { polls?: number }).polls =
        ((b as BatchRec & { polls?: number }).polls ?? 0) + 1);
      if (
        b.status === 'in_progress' &&
        polls >= (o.completeAfterPolls ?? 0) &&
        Date.now() - (b as BatchRec & { createdMs: number }).createdMs >= (o.completeAfterMs ?? 0)
      )
        finish(b, req.headers.authorization);
      ctx.send(res, 200, visible(b));
      return true;
    }
    return false;
  };
}

/** a batch as the API shows it (the imitation's own bookkeeping left out) */
function visible(b: BatchRec) {
  const {
    createdMs: _c,
    polls: _p,
    n: _n,
    ...rest
  } = b as BatchRec & { createdMs?: number; polls?: number; n?: number };
  return { object: 'batch', errors: null, error_file_id: null, ...rest };
}

function readRaw(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
