// A stand-in foundation model for SoftEnt-Cali (none of SmolLM2 is reachable here): the instruct GGUF with two
// transformer blocks' weights swapped: same vocabulary and shapes, other entropies.
import { copyFileSync, openSync, closeSync, readSync, writeSync } from 'node:fs';
import { readGgufFileInfo } from 'node-llama-cpp';

/** Bytes per 32 weights of the GGML types swapped here (F32, F16, Q4_0, Q4_1). */
const BLOCK_BYTES: Record<number, number> = { 0: 128, 1: 64, 2: 18, 3: 20 };

/** `dst`: `src` with blocks `a` and `b`'s tensors exchanged. */
export async function writeSwappedBlocks(src: string, dst: string, a: number, b: number): Promise<void> {
  const info = await readGgufFileInfo(src, { readTensorInfo: true });
  const tensors = new Map((info.tensorInfo ?? []).map((t) => [t.name, t]));
  copyFileSync(src, dst);
  const fd = openSync(dst, 'r+');
  try {
    for (const [name, ta] of tensors) {
      if (!name.startsWith(`blk.${a}.`)) continue;
      const tb = tensors.get(name.replace(`blk.${a}.`, `blk.${b}.`));
      const per = BLOCK_BYTES[ta.ggmlType];
      if (!tb || per === undefined || tb.ggmlType !== ta.ggmlType)
        throw new Error(`${src}: cannot swap ${name}`);
      const n = ta.dimensions.reduce<number>((x, d) => x * Number(d), 1);
      const size = (n / 32) * per;
      const [x, y] = [Buffer.alloc(size), Buffer.alloc(size)];
      readSync(fd, x, 0, size, Number(ta.fileOffset));
      readSync(fd, y, 0, size, Number(tb.fileOffset));
      writeSync(fd, y, 0, size, Number(ta.fileOffset));
      writeSync(fd, x, 0, size, Number(tb.fileOffset));
    }
  } finally {
    closeSync(fd);
  }
}
