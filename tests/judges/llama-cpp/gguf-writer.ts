// A tiny GGUF v3 writer, enough for a random-weight `llama` model that real llama.cpp loads.
// Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
import { writeFileSync } from 'node:fs';
import { seededRng } from '../../../src/core/stats/random.ts';

const T = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10 } as const;
type Value =
  | { t: 'u32' | 'i32' | 'f32' | 'bool' | 'string' | 'u64'; v: number | string | boolean }
  | { t: 'array'; of: 'i32' | 'f32' | 'string'; v: (number | string)[] };

class Buf {
  private parts: Buffer[] = [];
  size = 0;
  push(b: Buffer) {
    this.parts.push(b);
    this.size += b.length;
  }
  u32(n: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.push(b);
  }
  i32(n: number) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.push(b);
  }
  u64(n: number) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.push(b);
  }
  f32(n: number) {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.push(b);
  }
  str(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  scalar(t: 'u32' | 'i32' | 'f32' | 'bool' | 'string' | 'u64', v: number | string | boolean) {
    if (t === 'string') this.str(v as string);
    else if (t === 'bool') this.push(Buffer.from([v ? 1 : 0]));
    else this[t](v as number);
  }
  pad(align: number) {
    const n = (align - (this.size % align)) % align;
    if (n) this.push(Buffer.alloc(n));
  }
  concat() {
    return Buffer.concat(this.parts);
  }
}

/** SentencePiece-style vocabulary: specials, the 256 byte-fallback tokens, then pieces ("▁" marks a space). */
export function tinyVocab(extra: string[] = []): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [2, 3, 3]; // UNKNOWN, CONTROL, CONTROL
  for (let i = 0; i < 256; i++) {
    tokens.push(`<0x${i.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(6); // BYTE
  }
  const common =
    'the a of and is answer s The turn with in A Assistant are question to User B on Answer as if assistant second two it for that user Start End one rating at which only reference Reference Conversation you not math each better their about You three from single out first exactly so every correct What an must fair what last by order length final same explain judge assistants shown writing your reasoning or be these between against briefly conversation Write new why does how I time would questions answers have after should then both best orders pair pairwise instructions helpful relevant accurate detailed verdict written Pairwise Correctness helpfulness mistake Below Then rate response Rating Single grading Question name colours sky Now Blue grey Because light please act impartial evaluate quality responses provided'.split(
      ' ',
    );
  // SentencePiece merges two pieces only into a piece that is in the vocabulary, so every prefix is one
  const prefixes = (w: string) => Array.from({ length: w.length - 1 }, (_, i) => w.slice(0, i + 2));
  const words = [
    '▁',
    ...common.flatMap((w) => [...prefixes(`▁${w}`), ...prefixes(w)]),
    '▁[[',
    '[[',
    ']]',
    'A',
    'B',
    'C',
    '▁A',
    '▁B',
    '▁C',
    'A]]',
    '▁the',
    '▁answer',
    '▁is',
    '▁better',
    '▁Assistant',
    '▁judge',
    '▁[',
    ']',
    '[',
    '.',
    ',',
    '\n',
    'INST',
    'SYS',
    '<<',
    '>>',
    '▁[/',
    ...'abcdefghijklmnopqrstuvwxyz'.split(''),
    ...extra,
  ];
  const seen = new Set(tokens);
  for (const w of words) {
    if (seen.has(w)) continue;
    seen.add(w);
    tokens.push(w);
    types.push(1); // NORMAL
  }
  // longer pieces score higher so the tokenizer prefers them
  const scores = tokens.map((t, i) => (types[i] === 1 ? -100 + t.length : 0));
  return { tokens, scores, types };
}

/** The Llama-2-chat template (as Meta ships it), so node-llama-cpp resolves its Llama 2 chat wrapper from the file. */
export const LLAMA2_CHAT_TEMPLATE =
  "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% set system_message = false %}{% endif %}{% for message in loop_messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}{% set content = message['content'] %}{% endif %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}";

export interface TinyLlamaOptions {
  /** embedding width (default 32) */
  embd?: number;
  /** feed-forward width (default 64) */
  ff?: number;
  heads?: number;
  blocks?: number;
  contextLength?: number;
  seed?: number;
  /** weight scale (default 0.5); larger makes sharper, less uniform next-token distributions */
  scale?: number;
  chatTemplate?: string | null;
}

/** Write a random-weight llama GGUF (F32 tensors) to `path`; returns its size and vocabulary. */
export function writeTinyLlama(path: string, o: TinyLlamaOptions = {}): { bytes: number; vocab: string[] } {
  const embd = o.embd ?? 32;
  const ff = o.ff ?? 64;
  const heads = o.heads ?? 4;
  const blocks = o.blocks ?? 2;
  const scale = o.scale ?? 0.5;
  const rand = seededRng(o.seed ?? 1);
  const vocab = tinyVocab();
  const nVocab = vocab.tokens.length;

  const meta: [string, Value][] = [
    ['general.architecture', { t: 'string', v: 'llama' }],
    ['general.name', { t: 'string', v: 'mt-arena tiny random llama' }],
    ['general.alignment', { t: 'u32', v: 32 }],
    ['llama.context_length', { t: 'u32', v: o.contextLength ?? 2048 }],
    ['llama.embedding_length', { t: 'u32', v: embd }],
    ['llama.block_count', { t: 'u32', v: blocks }],
    ['llama.feed_forward_length', { t: 'u32', v: ff }],
    ['llama.attention.head_count', { t: 'u32', v: heads }],
    ['llama.attention.head_count_kv', { t: 'u32', v: heads }],
    ['llama.rope.dimension_count', { t: 'u32', v: embd / heads }],
    ['llama.attention.layer_norm_rms_epsilon', { t: 'f32', v: 1e-5 }],
    ['tokenizer.ggml.model', { t: 'string', v: 'llama' }],
    ['tokenizer.ggml.tokens', { t: 'array', of: 'string', v: vocab.tokens }],
    ['tokenizer.ggml.scores', { t: 'array', of: 'f32', v: vocab.scores }],
    ['tokenizer.ggml.token_type', { t: 'array', of: 'i32', v: vocab.types }],
    ['tokenizer.ggml.bos_token_id', { t: 'u32', v: 1 }],
    ['tokenizer.ggml.eos_token_id', { t: 'u32', v: 2 }],
    ['tokenizer.ggml.unknown_token_id', { t: 'u32', v: 0 }],
    ['tokenizer.ggml.add_bos_token', { t: 'bool', v: true }],
    ['tokenizer.ggml.add_eos_token', { t: 'bool', v: false }],
  ];
  if (o.chatTemplate !== null)
    meta.push(['tokenizer.chat_template', { t: 'string', v: o.chatTemplate ?? LLAMA2_CHAT_TEMPLATE }]);

  // ggml dims: ne[0] is the row length (input width)
  const tensors: { name: string; dims: number[]; init: 'ones' | 'rand' }[] = [
    { name: 'token_embd.weight', dims: [embd, nVocab], init: 'rand' },
  ];
  for (let b = 0; b < blocks; b++) {
    tensors.push(
      { name: `blk.${b}.attn_norm.weight`, dims: [embd], init: 'ones' },
      { name: `blk.${b}.attn_q.weight`, dims: [embd, embd], init: 'rand' },
      { name: `blk.${b}.attn_k.weight`, dims: [embd, embd], init: 'rand' },
      { name: `blk.${b}.attn_v.weight`, dims: [embd, embd], init: 'rand' },
      { name: `blk.${b}.attn_output.weight`, dims: [embd, embd], init: 'rand' },
      { name: `blk.${b}.ffn_norm.weight`, dims: [embd], init: 'ones' },
      { name: `blk.${b}.ffn_gate.weight`, dims: [embd, ff], init: 'rand' },
      { name: `blk.${b}.ffn_up.weight`, dims: [embd, ff], init: 'rand' },
      { name: `blk.${b}.ffn_down.weight`, dims: [ff, embd], init: 'rand' },
    );
  }
  tensors.push(
    { name: 'output_norm.weight', dims: [embd], init: 'ones' },
    { name: 'output.weight', dims: [embd, nVocab], init: 'rand' },
  );

  const h = new Buf();
  h.push(Buffer.from('GGUF', 'ascii'));
  h.u32(3);
  h.u64(tensors.length);
  h.u64(meta.length);
  for (const [k, val] of meta) {
    h.str(k);
    if (val.t === 'array') {
      h.u32(T.array);
      h.u32(T[val.of]);
      h.u64(val.v.length);
      for (const x of val.v) h.scalar(val.of, x);
    } else {
      h.u32(T[val.t]);
      h.scalar(val.t, val.v);
    }
  }
  let offset = 0;
  const datas: Buffer[] = [];
  for (const t of tensors) {
    const n = t.dims.reduce((a, b) => a * b, 1);
    const data = Buffer.alloc(n * 4);
    const s = scale / Math.sqrt(t.dims[0]!);
    for (let i = 0; i < n; i++)
      data.writeFloatLE(t.init === 'ones' ? 1 : (rand() * 2 - 1) * s * Math.sqrt(3) * 2, i * 4);
    h.str(t.name);
    h.u32(t.dims.length);
    for (const d of t.dims) h.u64(d);
    h.u32(0); // GGML_TYPE_F32
    h.u64(offset);
    const padded = Math.ceil(data.length / 32) * 32;
    datas.push(data, Buffer.alloc(padded - data.length));
    offset += padded;
  }
  h.pad(32);
  for (const d of datas) h.push(d);
  const out = h.concat();
  writeFileSync(path, out);
  return { bytes: out.length, vocab: vocab.tokens };
}
