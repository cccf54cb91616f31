// Writes images/icon.png (128×128 RGBA): a lens ring over three bars of decreasing width (fp32/bf16/fp8).
// No dependencies: PNG chunks by hand, zlib from Node. Run: npm run setup:icon
import { writeFileSync, mkdirSync } from "node:fs";
import { deflateSync } from "node:zlib";

const N = 128;
const px = Buffer.alloc(N * N * 4);
const put = (x, y, [r, g, b, a]) => {
  const i = (y * N + x) * 4;
  const al = a / 255, ia = 1 - al;
  px[i] = Math.round(r * al + px[i] * ia);
  px[i + 1] = Math.round(g * al + px[i + 1] * ia);
  px[i + 2] = Math.round(b * al + px[i + 2] * ia);
  px[i + 3] = Math.max(px[i + 3], a);
};
const cover = (d) => Math.max(0, Math.min(1, 0.5 - d)); // anti-aliasing from a signed distance
for (let y = 0; y < N; y++)
  for (let x = 0; x < N; x++) {
    // rounded-square background
    const qx = Math.max(Math.abs(x + 0.5 - 64) - 52, 0), qy = Math.max(Math.abs(y + 0.5 - 64) - 52, 0);
    const dBg = Math.hypot(qx, qy) - 10;
    const c = cover(dBg);
    if (c > 0) put(x, y, [27, 35, 48, Math.round(255 * c)]);
    // bars: fp32 (wide), bf16, fp8
    const bars = [[30, 34, 66, [86, 156, 214]], [30, 54, 46, [78, 201, 176]], [30, 74, 26, [220, 180, 80]]];
    for (const [bx, by, w, col] of bars) {
      const dx = Math.max(bx - (x + 0.5), x + 0.5 - (bx + w), 0), dy = Math.max(by - (y + 0.5), y + 0.5 - (by + 12), 0);
      const cb = cover(Math.hypot(dx, dy) - 0.01);
      if (cb > 0 && (dx > 0 || dy > 0 ? true : true)) put(x, y, [...col, Math.round(230 * cb)]);
    }
    // lens ring + handle
    const d = Math.abs(Math.hypot(x + 0.5 - 74, y + 0.5 - 60) - 26) - 4.5;
    const cr = cover(d);
    if (cr > 0) put(x, y, [235, 240, 245, Math.round(255 * cr)]);
    const t = Math.max(0, Math.min(1, ((x + 0.5 - 93) * 1 + (y + 0.5 - 79) * 1) / (2 * 17 * 17) * 17));
    const hx = 93 + t * 17, hy = 79 + t * 17;
    const ch = cover(Math.hypot(x + 0.5 - hx, y + 0.5 - hy) - 6);
    if (ch > 0) put(x, y, [235, 240, 245, Math.round(255 * ch)]);
  }

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
};
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(N, 0);
ihdr.writeUInt32BE(N, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // RGBA
const raw = Buffer.alloc(N * (N * 4 + 1));
for (let y = 0; y < N; y++) px.copy(raw, y * (N * 4 + 1) + 1, y * N * 4, (y + 1) * N * 4);
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk("IHDR", ihdr),
  chunk("IDAT", deflateSync(raw, { level: 9 })),
  chunk("IEND", Buffer.alloc(0)),
]);
mkdirSync(new URL("../../images/", import.meta.url), { recursive: true });
writeFileSync(new URL("../../images/icon.png", import.meta.url), png);
console.log(`images/icon.png: ${png.length} bytes`);
