// The site's /favicon.ico (browsers ask for it whatever the page says) and /robots.txt, made here: an ICO of
// one 16 x 16 32-bit bitmap (three rising bars, the leaderboard), built once from its pixels.

const SIZE = 16;
const INK = [0x2b, 0x4c, 0x7e, 0xff] as const; // B, G, R, A
const BARS = [
  { x: 2, w: 3, h: 6 },
  { x: 6, w: 3, h: 10 },
  { x: 10, w: 3, h: 14 },
];

/** The ICO file: header, one directory entry, a BITMAPINFOHEADER, bottom-up BGRA pixels and the AND mask. */
export function favicon(): Uint8Array<ArrayBuffer> {
  const pixels = SIZE * SIZE * 4;
  const mask = SIZE * 4; // 1 bit per pixel, rows padded to 4 bytes
  const image = 40 + pixels + mask;
  const b = new DataView(new ArrayBuffer(6 + 16 + image));
  b.setUint16(2, 1, true); // type: icon
  b.setUint16(4, 1, true); // one image
  b.setUint8(6, SIZE);
  b.setUint8(7, SIZE);
  b.setUint16(10, 1, true); // planes
  b.setUint16(12, 32, true); // bits per pixel
  b.setUint32(14, image, true);
  b.setUint32(18, 22, true); // offset of the image
  const h = 22;
  b.setUint32(h, 40, true);
  b.setInt32(h + 4, SIZE, true);
  b.setInt32(h + 8, SIZE * 2, true); // XOR and AND bitmaps
  b.setUint16(h + 12, 1, true);
  b.setUint16(h + 14, 32, true);
  b.setUint32(h + 20, pixels + mask, true);
  for (let y = 0; y < SIZE; y++)
    // row 0 is the bottom row
    for (let x = 0; x < SIZE; x++) {
      const on = BARS.some((r) => x >= r.x && x < r.x + r.w && y >= 1 && y < 1 + r.h);
      if (on) INK.forEach((v, i) => b.setUint8(h + 40 + (y * SIZE + x) * 4 + i, v));
    }
  return new Uint8Array(b.buffer);
}

export const ROBOTS = 'User-agent: *\nAllow: /\nDisallow: /api/admin/\n';
