import { createImage, type RgbImage } from './rgbImage.js';

// XWD (X Window Dump, file version 7), as written by `xwd`: a header of 25
// CARD32 fields, the window name, a colormap of 12-byte entries, then the
// image rows. xwd writes the header and colormap in big-endian order; the
// pixels keep the X server's byte order, named in the header.
const HEADER_FIELDS = 25;
const XWD_FILE_VERSION = 7;
const Z_PIXMAP = 2;
const TRUE_COLOR = 4;
const DIRECT_COLOR = 5;
const LSB_FIRST = 0;

export interface XwdHeader {
  headerSize: number;
  pixmapFormat: number;
  pixmapDepth: number;
  width: number;
  height: number;
  byteOrder: number;
  bitsPerPixel: number;
  bytesPerLine: number;
  visualClass: number;
  redMask: number;
  greenMask: number;
  blueMask: number;
  colormapEntries: number;
  ncolors: number;
}

export function parseXwdHeader(file: Buffer): XwdHeader {
  if (file.length < HEADER_FIELDS * 4) throw new Error(`xwd file too short for a header: ${file.length} bytes`);
  let littleEndian = false;
  if (file.readUInt32BE(4) !== XWD_FILE_VERSION) {
    if (file.readUInt32LE(4) !== XWD_FILE_VERSION) throw new Error('not an xwd version 7 file');
    littleEndian = true;
  }
  const field = (index: number): number => (littleEndian ? file.readUInt32LE(index * 4) : file.readUInt32BE(index * 4));
  return {
    headerSize: field(0),
    pixmapFormat: field(2),
    pixmapDepth: field(3),
    width: field(4),
    height: field(5),
    byteOrder: field(7),
    bitsPerPixel: field(11),
    bytesPerLine: field(12),
    visualClass: field(13),
    redMask: field(14),
    greenMask: field(15),
    blueMask: field(16),
    colormapEntries: field(18),
    ncolors: field(19),
  };
}

interface Channel { shift: number; max: number }

function channelOf(mask: number, name: string): Channel {
  if (mask === 0) throw new Error(`xwd ${name} mask is empty`);
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift += 1;
  return { shift, max: mask >>> shift };
}

function scale(value: number, max: number): number {
  return max === 255 ? value : Math.round((value * 255) / max);
}

/**
 * Decodes a ZPixmap TrueColor/DirectColor XWD (16, 24 or 32 bits per pixel,
 * either byte order) into RGBA. Exact: 8-bit channels come through unchanged.
 */
export function decodeXwd(file: Buffer): RgbImage {
  const header = parseXwdHeader(file);
  if (header.pixmapFormat !== Z_PIXMAP) throw new Error(`unsupported xwd pixmap format ${header.pixmapFormat} (only ZPixmap)`);
  if (header.visualClass !== TRUE_COLOR && header.visualClass !== DIRECT_COLOR) {
    throw new Error(`unsupported xwd visual class ${header.visualClass} (only TrueColor and DirectColor)`);
  }
  const bytesPerPixel = header.bitsPerPixel / 8;
  if (![2, 3, 4].includes(bytesPerPixel)) throw new Error(`unsupported xwd bits per pixel ${header.bitsPerPixel}`);
  const dataOffset = header.headerSize + header.ncolors * 12;
  const needed = dataOffset + header.bytesPerLine * header.height;
  if (file.length < needed) throw new Error(`xwd file truncated: ${file.length} bytes, need ${needed}`);
  if (header.bytesPerLine < header.width * bytesPerPixel) throw new Error(`xwd bytes per line ${header.bytesPerLine} too small for width ${header.width}`);

  const red = channelOf(header.redMask, 'red');
  const green = channelOf(header.greenMask, 'green');
  const blue = channelOf(header.blueMask, 'blue');
  const lsb = header.byteOrder === LSB_FIRST;
  const image = createImage(header.width, header.height);
  const out = image.data;
  for (let y = 0; y < header.height; y += 1) {
    let source = dataOffset + y * header.bytesPerLine;
    let target = y * header.width * 4;
    for (let x = 0; x < header.width; x += 1) {
      let pixel = 0;
      for (let byte = 0; byte < bytesPerPixel; byte += 1) {
        const value = file[source + (lsb ? bytesPerPixel - 1 - byte : byte)] ?? 0;
        pixel = pixel * 256 + value;
      }
      out[target] = scale((pixel & header.redMask) >>> red.shift, red.max);
      out[target + 1] = scale((pixel & header.greenMask) >>> green.shift, green.max);
      out[target + 2] = scale((pixel & header.blueMask) >>> blue.shift, blue.max);
      out[target + 3] = 255;
      source += bytesPerPixel;
      target += 4;
    }
  }
  return image;
}
