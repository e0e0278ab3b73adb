// SHA-256 of text, for content-addressed game ids. Core imports no platform module: @noble/hashes is the portable
// digest; where the runtime hands out node:crypto without an import (`process.getBuiltinModule`: Node >= 20.16,
// workerd with nodejs_compat), its native digest is used instead, as planning hashes every game on every run.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** The hex SHA-256 of a string's UTF-8 bytes (lone surrogates encode as U+FFFD, as TextEncoder does). */
export type Sha256Hex = (text: string) => string;

export const portableSha256Hex: Sha256Hex = (text) => bytesToHex(sha256(utf8ToBytes(text)));

interface NativeHash {
  createHash(algorithm: 'sha256'): { update(text: string, encoding: 'utf8'): { digest(enc: 'hex'): string } };
}

/** node:crypto's digest when the runtime offers it without an import, else undefined. */
export function nativeSha256Hex(): Sha256Hex | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  let crypto: NativeHash | undefined;
  try {
    crypto = proc?.getBuiltinModule?.('node:crypto') as NativeHash | undefined;
  } catch {
    return undefined; // a runtime that has the function but refuses the module
  }
  if (typeof crypto?.createHash !== 'function') return undefined;
  return (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

export const sha256Hex: Sha256Hex = nativeSha256Hex() ?? portableSha256Hex;
