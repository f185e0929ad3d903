import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeXwd, parseXwdHeader } from './xwdDecoder.js';

interface Layout {
  bitsPerPixel: 16 | 24 | 32;
  byteOrder: 0 | 1;
  masks: [number, number, number];
  bytesPerLine: number;
  ncolors: number;
}

// Builds an XWD the way xwd writes one: big-endian header and colormap,
// pixels in the stated byte order, rows padded to bytesPerLine.
function buildXwd(width: number, height: number, pixels: readonly number[], layout: Layout): Buffer {
  const name = Buffer.from('test\0', 'ascii');
  const headerSize = 100 + name.length;
  const header = Buffer.alloc(100);
  const fields = [
    headerSize, 7, 2, 24, width, height, 0, layout.byteOrder, 32, layout.byteOrder, 32, layout.bitsPerPixel,
    layout.bytesPerLine, 4, layout.masks[0], layout.masks[1], layout.masks[2], 8, 256, layout.ncolors, width, height, 0, 0, 0,
  ];
  fields.forEach((value, index) => header.writeUInt32BE(value, index * 4));
  const colormap = Buffer.alloc(layout.ncolors * 12, 0xab);
  const bytesPerPixel = layout.bitsPerPixel / 8;
  const data = Buffer.alloc(layout.bytesPerLine * height, 0xee);
  pixels.forEach((pixel, index) => {
    const offset = Math.floor(index / width) * layout.bytesPerLine + (index % width) * bytesPerPixel;
    for (let byte = 0; byte < bytesPerPixel; byte += 1) {
      const shift = 8 * (layout.byteOrder === 0 ? byte : bytesPerPixel - 1 - byte);
      data[offset + byte] = Math.floor(pixel / 2 ** shift) & 0xff;
    }
  });
  return Buffer.concat([header, name, colormap, data]);
}

const RGB_PIXELS = [0xff0000, 0x00ff00, 0x0000ff, 0x123456, 0xffffff, 0x000000];
const EXPECTED_RGBA = [
  [255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [0x12, 0x34, 0x56, 255], [255, 255, 255, 255], [0, 0, 0, 255],
];

function pixelsOf(data: Buffer): number[][] {
  const out: number[][] = [];
  for (let offset = 0; offset < data.length; offset += 4) out.push([...data.subarray(offset, offset + 4)]);
  return out;
}

for (const byteOrder of [0, 1] as const) {
  for (const bitsPerPixel of [32, 24] as const) {
    test(`decodes ${bitsPerPixel} bpp TrueColor, byte order ${byteOrder === 0 ? 'LSB' : 'MSB'} first, padded rows`, () => {
      const width = 3;
      const bytesPerLine = width * (bitsPerPixel / 8) + 3; // padding must be skipped
      const file = buildXwd(width, 2, RGB_PIXELS, { bitsPerPixel, byteOrder, masks: [0xff0000, 0xff00, 0xff], bytesPerLine, ncolors: 2 });
      const image = decodeXwd(file);
      assert.equal(image.width, 3);
      assert.equal(image.height, 2);
      assert.deepEqual(pixelsOf(image.data), EXPECTED_RGBA);
    });
  }
}

test('decodes 16 bpp RGB565 and scales channels to 8 bits', () => {
  const rgb565 = [0xf800, 0x07e0, 0x001f, 0xffff, 0x0000, 0x8410];
  const image = decodeXwd(buildXwd(6, 1, rgb565, { bitsPerPixel: 16, byteOrder: 0, masks: [0xf800, 0x07e0, 0x001f], bytesPerLine: 12, ncolors: 0 }));
  assert.deepEqual(pixelsOf(image.data), [
    [255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 255, 255], [0, 0, 0, 255],
    [Math.round((16 * 255) / 31), Math.round((32 * 255) / 63), Math.round((16 * 255) / 31), 255],
  ]);
});

test('rejects truncated files and unsupported formats with a reason', () => {
  const file = buildXwd(3, 2, RGB_PIXELS, { bitsPerPixel: 32, byteOrder: 0, masks: [0xff0000, 0xff00, 0xff], bytesPerLine: 12, ncolors: 0 });
  assert.throws(() => decodeXwd(file.subarray(0, file.length - 1)), /truncated/);
  assert.throws(() => decodeXwd(Buffer.alloc(10)), /too short/);
  assert.throws(() => decodeXwd(Buffer.alloc(200)), /not an xwd version 7 file/);
  const pseudo = Buffer.from(file);
  pseudo.writeUInt32BE(3, 13 * 4); // PseudoColor
  assert.throws(() => decodeXwd(pseudo), /visual class 3/);
  assert.equal(parseXwdHeader(file).bytesPerLine, 12);
});
