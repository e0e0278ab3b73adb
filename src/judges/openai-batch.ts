// The OpenAI Batch API (files + batches endpoints) behind the few calls batch mode needs (src/ops/batch.ts):
// the one place it touches the SDK. The client is the judges' own (openaiClient: key handling, httpFetch).
import OpenAI, { toFile } from 'openai';
import { openaiClient } from './openai.ts';
import { redactReply, redactSecrets } from './redact.ts';

/** A batch as the server describes it. */
export interface BatchInfo {
  id: string;
  status: string;
  inputFileId: string;
  outputFileId: string | null;
  /** the failed requests' lines (same shape as the output's), when any failed */
  errorFileId: string | null;
  /** why the whole batch failed (`errors.data`), when it did */
  errors: string | null;
  /** when it was created, ms since the epoch */
  createdAt: number;
  metadata: Record<string, string> | null;
}

export interface BatchClient {
  /** every batch of the organisation, newest first, a page (100) at a time as the caller reads on */
  list(): AsyncIterable<BatchInfo>;
  retrieve(id: string, signal?: AbortSignal): Promise<BatchInfo>;
  /**
   * the text of a file (a batch's output: one JSON line per request); null when the server has no such file any
   * more (404: deleted, or past the provider's retention)
   */
  outputText(fileId: string): Promise<string | null>;
  /** upload `lines` as a JSONL file and create a 24 h chat-completions batch of it */
  submit(
    lines: string[],
    fileName: string,
    metadata: Record<string, string>,
  ): Promise<{ fileId: string; batchId: string }>;
  /** the server answered with an HTTP error (not a 5xx): nothing was created */
  isRejected(e: unknown): boolean;
  /**
   * a reply with the client's API key (and so `Bearer <key>`) replaced by `[redacted]`, and how many were: a server
   * that echoes the key into its output must not have it stored with the game
   */
  redact(reply: string): { text: string; redactions: number };
}

/**
 * A batch output file holds every game's reply: far above a judge reply's cap. Bounded at what V8 can hold
 * as one string (about 512 Mi characters) anyway.
 */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

/** An SDK error whose message carried the key, redacted (its HTTP status kept). */
class BatchApiError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

/** The Batch API of an OpenAI-compatible server. Errors never carry the key (a server may echo it back). */
export function openaiBatchClient(o: {
  apiKey?: string | undefined;
  baseURL?: string | undefined;
}): BatchClient {
  // the SDK's own retries (a batch call has no retry wrapper) and its default timeout (10 min)
  const client = openaiClient({ ...o, maxRetries: 4, timeoutMs: 600_000, maxReplyBytes: MAX_OUTPUT_BYTES });
  const info = (b: OpenAI.Batches.Batch): BatchInfo => ({
    id: b.id,
    status: b.status,
    inputFileId: b.input_file_id,
    outputFileId: b.output_file_id ?? null,
    errorFileId: b.error_file_id ?? null,
    errors: b.errors?.data?.length
      ? b.errors.data.map((e) => `${e.code ?? 'error'}: ${e.message ?? ''}`.trim()).join('; ')
      : null,
    createdAt: b.created_at * 1000,
    metadata: (b.metadata as Record<string, string> | null | undefined) ?? null,
  });
  const clean = (e: unknown): unknown => {
    if (!(e instanceof Error) || e instanceof OpenAI.APIUserAbortError) return e;
    const message = redactSecrets(e.message, [o.apiKey]);
    if (message === e.message) return e;
    // no `cause`: the SDK's error holds the raw body and the request headers
    return new BatchApiError(message, e instanceof OpenAI.APIError ? e.status : undefined);
  };
  const guard = async <T>(f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      throw clean(e);
    }
  };
  return {
    // the SDK's cursor pages: `after` the last id while `has_more`
    list: async function* () {
      let page = await guard(() => client.batches.list({ limit: 100 }));
      for (;;) {
        for (const b of page.data) yield info(b);
        if (!page.hasNextPage()) return;
        const p = page;
        page = await guard(() => p.getNextPage());
      }
    },
    retrieve: (id, signal) =>
      guard(async () => info(await client.batches.retrieve(id, signal ? { signal } : {}))),
    outputText: (fileId) =>
      guard(async () => {
        try {
          return await (await client.files.content(fileId)).text();
        } catch (e) {
          if (e instanceof OpenAI.NotFoundError) return null;
          throw e;
        }
      }),
    submit: (lines, fileName, metadata) =>
      guard(async () => {
        const file = await client.files.create({
          file: await toFile(Buffer.from(`${lines.join('\n')}\n`), fileName),
          purpose: 'batch',
        });
        const batch = await client.batches.create({
          input_file_id: file.id,
          endpoint: '/v1/chat/completions',
          completion_window: '24h',
          metadata,
        });
        return { fileId: file.id, batchId: batch.id };
      }),
    redact: (reply) => redactReply(reply, [o.apiKey]),
    isRejected: (e) =>
      (e instanceof OpenAI.APIError || e instanceof BatchApiError) &&
      e.status !== undefined &&
      e.status < 500,
  };
}
