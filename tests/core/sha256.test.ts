import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nativeSha256Hex, portableSha256Hex, sha256Hex } from '../../src/core/sha256.ts';

// FIPS 180-2 appendix B vectors, and text a game's prompts really hold
const VECTORS: [string, string][] = [
  ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  [
    'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  ],
];

/** Random text over ASCII, accented Latin, CJK, emoji (surrogate pairs) and lone surrogates. */
function randomText(seed: number, length: number): string {
  let x = seed >>> 0 || 1;
  const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
  const pools = [
    () => String.fromCharCode(32 + Math.floor(next() * 95)),
    () => String.fromCharCode(0xc0 + Math.floor(next() * 0x40)),
    () => String.fromCharCode(0x4e00 + Math.floor(next() * 0x5000)),
    () => String.fromCodePoint(0x1f600 + Math.floor(next() * 0x50)),
    () => String.fromCharCode(0xd800 + Math.floor(next() * 0x800)), // a lone surrogate half
    () => '\n',
  ];
  let s = '';
  while (s.length < length) s += pools[Math.floor(next() * pools.length)]!();
  return s;
}

describe('sha256Hex', () => {
  it('gives the published digests (portable and native)', () => {
    for (const [text, hex] of VECTORS) {
      expect(portableSha256Hex(text)).toBe(hex);
      expect(sha256Hex(text)).toBe(hex);
    }
  });

  it('portable and native digests agree on 500 texts of up to 20k characters, lone surrogates included', () => {
    const native = nativeSha256Hex();
    // Node >= 20.16 exposes process.getBuiltinModule (CI runs 20.20); 20.11-20.15 use the portable digest alone
    const hasBuiltins = typeof (process as { getBuiltinModule?: unknown }).getBuiltinModule === 'function';
    expect(native !== undefined).toBe(hasBuiltins);
    for (let i = 0; i < 500; i++) {
      const text = randomText(i + 1, (i * 37) % 20000);
      const want = createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');
      expect(portableSha256Hex(text)).toBe(want);
      if (native) expect(native(text)).toBe(want);
    }
    if (hasBuiltins) expect(sha256Hex).not.toBe(portableSha256Hex);
  });

  it('a megabyte of text', () => {
    const text = randomText(7, 1 << 20);
    expect(sha256Hex(text)).toBe(portableSha256Hex(text));
  });

  it('falls back to the portable digest where the runtime has no getBuiltinModule, or refuses node:crypto', () => {
    const proc = process as unknown as { getBuiltinModule?: unknown };
    const orig = proc.getBuiltinModule;
    try {
      proc.getBuiltinModule = undefined;
      expect(nativeSha256Hex()).toBeUndefined();
      proc.getBuiltinModule = () => {
        throw new Error('No such module: node:crypto');
      };
      expect(nativeSha256Hex()).toBeUndefined();
      proc.getBuiltinModule = () => undefined;
      expect(nativeSha256Hex()).toBeUndefined();
    } finally {
      proc.getBuiltinModule = orig;
    }
    if (orig) expect(nativeSha256Hex()).toBeDefined();
  });
});
