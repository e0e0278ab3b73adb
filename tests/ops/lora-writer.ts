// A LoRA adapter GGUF (llama.cpp's adapter format, F32 lora_a/lora_b) for the tiny llama of gguf-writer.ts: each
// "checkpoint" of the tests is the base model plus one of these.
import { writeFileSync } from 'node:fs';
import { seededRng } from '../../src/core/stats/random.ts';

export interface TinyLoraOptions {
  /** must match the base model (defaults of writeTinyLlama: 32 wide, 2 blocks, 64 ff) */
  embd?: number;
  blocks?: number;
  rank?: number;
  alpha?: number;
  /** size of the random update (default 1) */
  scale?: number;
  seed?: number;
}

export function writeTinyLora(path: string, o: TinyLoraOptions = {}): number {
  const embd = o.embd ?? 32;
  const blocks = o.blocks ?? 2;
  const r = o.rank ?? 4;
  const rand = seededRng(o.seed ?? 1);
  const parts: Buffer[] = [];
  let size = 0;
  const push = (b: Buffer) => (parts.push(b), (size += b.length));
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    push(b);
  };
  const u64 = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    push(b);
  };
  const str = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    u64(b.length);
    push(b);
  };
  const meta: [string, 'string' | 'f32', string | number][] = [
    ['general.architecture', 'string', 'llama'],
    ['general.type', 'string', 'adapter'],
    ['adapter.type', 'string', 'lora'],
    ['adapter.lora.alpha', 'f32', o.alpha ?? r],
    ['general.alignment', 'string', ''],
  ];
  meta.pop(); // alignment left at the default (32)
  const tensors: { name: string; dims: number[] }[] = [];
  for (let b = 0; b < blocks; b++)
    for (const w of ['attn_q', 'attn_v', 'attn_output'])
      tensors.push(
        { name: `blk.${b}.${w}.weight.lora_a`, dims: [embd, r] },
        { name: `blk.${b}.${w}.weight.lora_b`, dims: [r, embd] },
      );
  push(Buffer.from('GGUF', 'ascii'));
  u32(3);
  u64(tensors.length);
  u64(meta.length);
  for (const [k, t, v] of meta) {
    str(k);
    if (t === 'string') {
      u32(8);
      str(v as string);
    } else {
      u32(6);
      const b = Buffer.alloc(4);
      b.writeFloatLE(v as number);
      push(b);
    }
  }
  let offset = 0;
  const datas: Buffer[] = [];
  for (const t of tensors) {
    const n = t.dims[0]! * t.dims[1]!;
    const data = Buffer.alloc(Math.ceil((n * 4) / 32) * 32);
    const s = (o.scale ?? 1) / Math.sqrt(t.dims[0]!);
    for (let i = 0; i < n; i++) data.writeFloatLE((rand() * 2 - 1) * s * 3, i * 4);
    str(t.name);
    u32(2);
    for (const d of t.dims) u64(d);
    u32(0); // F32
    u64(offset);
    datas.push(data);
    offset += data.length;
  }
  const pad = (32 - (size % 32)) % 32;
  if (pad) push(Buffer.alloc(pad));
  for (const d of datas) push(d);
  const out = Buffer.concat(parts);
  writeFileSync(path, out);
  return out.length;
}
