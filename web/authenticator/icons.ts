import { crc32, deflateSync } from 'node:zlib';

/** The icon's colours: the service's badge blue, and the check mark on it. */
const background = [0x3b, 0x5b, 0x7a] as const;
const foreground = [0xff, 0xff, 0xff] as const;

/** The check mark, in units of the icon's side: the authenticator's own icon, never a service's. */
const check: readonly (readonly [number, number])[] = [
  [36 / 128, 66 / 128],
  [54 / 128, 84 / 128],
  [92 / 128, 44 / 128],
];
const strokeWidth = 12 / 128;

export interface IconOptions {
  readonly size: number;
  /** Full bleed with the mark inside the central 80 % safe zone, for launchers that crop to their own shape. */
  readonly maskable?: boolean;
  /** Corner radius as a fraction of the side (0: square, as iOS and maskable icons want). */
  readonly radius?: number;
}

/**
 * A PNG of the authenticator's icon, drawn here so that the repository holds no binary or third-party artwork:
 * a rounded square with a check mark, anti-aliased by 4×4 supersampling.
 */
export function iconPng(options: IconOptions): Buffer {
  const { size } = options;
  const radius = (options.radius ?? 0) * size;
  const markScale = options.maskable ? 0.7 : 1;
  const samples = 4;
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) {
      let inShape = 0;
      let inMark = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const px = x + (sx + 0.5) / samples;
          const py = y + (sy + 0.5) / samples;
          if (!insideRoundedSquare(px, py, size, radius)) continue;
          inShape++;
          const u = (px / size - 0.5) / markScale + 0.5;
          const v = (py / size - 0.5) / markScale + 0.5;
          if (distanceToCheck(u, v) <= strokeWidth / 2) inMark++;
        }
      }
      const total = samples * samples;
      const alpha = inShape / total;
      const mix = inShape === 0 ? 0 : inMark / inShape;
      const offset = 1 + x * 4;
      for (let channel = 0; channel < 3; channel++) {
        row[offset + channel] = Math.round(
          (background[channel] ?? 0) * (1 - mix) + (foreground[channel] ?? 0) * mix,
        );
      }
      row[offset + 3] = Math.round(alpha * 255);
    }
    rows.push(row);
  }
  return encodePng(size, size, Buffer.concat(rows));
}

function insideRoundedSquare(x: number, y: number, size: number, radius: number): boolean {
  const cx = Math.min(Math.max(x, radius), size - radius);
  const cy = Math.min(Math.max(y, radius), size - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

function distanceToCheck(u: number, v: number): number {
  let best = Infinity;
  for (let index = 1; index < check.length; index++) {
    const [ax, ay] = check[index - 1] ?? [0, 0];
    const [bx, by] = check[index] ?? [0, 0];
    const dx = bx - ax;
    const dy = by - ay;
    const t = Math.min(1, Math.max(0, ((u - ax) * dx + (v - ay) * dy) / (dx * dx + dy * dy)));
    best = Math.min(best, Math.hypot(u - (ax + t * dx), v - (ay + t * dy)));
  }
  return best;
}

/** An 8-bit RGBA PNG of filtered scanlines (each starting with filter byte 0). */
function encodePng(width: number, height: number, scanlines: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(scanlines, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}
