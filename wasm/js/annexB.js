// What a decoder must know about one H.264 access unit before it is decoded
// (Annex-B byte stream, ITU-T H.264 7.3.1 and 7.3.2.1.1): whether it holds an
// IDR picture (WebCodecs wants `key` chunks to start a stream) and the profile
// and level of its sequence parameter set (the `avc1.PPCCLL` codec string). Pure.

const NAL_IDR = 5;
const NAL_SPS = 7;

/**
 * @param {Uint8Array} bytes one access unit, start-code delimited
 * @returns {{ idr: boolean, nalTypes: number[], sps: { profile: number, constraints: number, level: number, width: number, height: number } | null }}
 */
export function inspectAccessUnit(bytes) {
  const nalTypes = [];
  let idr = false;
  let sps = null;
  for (const start of nalStarts(bytes)) {
    const type = bytes[start] & 0x1f;
    nalTypes.push(type);
    if (type === NAL_IDR) idr = true;
    if (type === NAL_SPS && sps === null && start + 3 < bytes.length) sps = parseSps(bytes, start);
  }
  return { idr, nalTypes, sps };
}

/** `avc1.PPCCLL` for an SPS's profile_idc, constraint flags and level_idc (RFC 6381 3.3). */
export function codecString(sps) {
  const hex = (v) => v.toString(16).toUpperCase().padStart(2, '0');
  return `avc1.${hex(sps.profile)}${hex(sps.constraints)}${hex(sps.level)}`;
}

/** Offsets of each NAL unit's header byte (after a 00 00 01 start code). */
function* nalStarts(bytes) {
  for (let i = 0; i + 2 < bytes.length; i++) {
    if (bytes[i] === 0 && bytes[i + 1] === 0 && bytes[i + 2] === 1) {
      if (i + 3 < bytes.length) yield i + 3;
      i += 2;
    }
  }
}

/** Profile, level and picture size of the SPS whose NAL header byte is at `start`. */
function parseSps(bytes, start) {
  const profile = bytes[start + 1];
  const constraints = bytes[start + 2];
  const level = bytes[start + 3];
  let size = { width: 0, height: 0 };
  try {
    size = spsPictureSize(new BitReader(unescape(bytes, start + 4)), profile);
  } catch {
    // a truncated or odd SPS still names its profile; the decoder judges the rest
  }
  return { profile, constraints, level, ...size };
}

// profile_idc values whose SPS carries chroma_format_idc and bit depths (7.3.2.1.1)
const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

function spsPictureSize(r, profile) {
  r.ue(); // seq_parameter_set_id
  let chromaFormat = 1;
  if (HIGH_PROFILES.has(profile)) {
    chromaFormat = r.ue();
    if (chromaFormat === 3) r.bit(); // separate_colour_plane_flag
    r.ue(); r.ue(); // bit depths
    r.bit(); // qpprime_y_zero_transform_bypass_flag
    if (r.bit()) { // seq_scaling_matrix_present_flag
      for (let i = 0; i < (chromaFormat === 3 ? 12 : 8); i++) {
        if (r.bit()) skipScalingList(r, i < 6 ? 16 : 64);
      }
    }
  }
  r.ue(); // log2_max_frame_num_minus4
  const pocType = r.ue();
  if (pocType === 0) r.ue();
  else if (pocType === 1) {
    r.bit(); r.se(); r.se();
    const cycle = r.ue();
    for (let i = 0; i < cycle; i++) r.se();
  }
  r.ue(); // max_num_ref_frames
  r.bit(); // gaps_in_frame_num_value_allowed_flag
  const widthMbs = r.ue() + 1;
  const heightMapUnits = r.ue() + 1;
  const frameMbsOnly = r.bit();
  if (!frameMbsOnly) r.bit();
  r.bit(); // direct_8x8_inference_flag
  let width = widthMbs * 16;
  let height = heightMapUnits * 16 * (2 - frameMbsOnly);
  if (r.bit()) { // frame_cropping_flag
    const [left, right, top, bottom] = [r.ue(), r.ue(), r.ue(), r.ue()];
    const cropX = chromaFormat === 1 || chromaFormat === 2 ? 2 : 1;
    const cropY = (chromaFormat === 1 ? 2 : 1) * (2 - frameMbsOnly);
    width -= (left + right) * cropX;
    height -= (top + bottom) * cropY;
  }
  return { width, height };
}

function skipScalingList(r, size) {
  let last = 8;
  let next = 8;
  for (let j = 0; j < size; j++) {
    if (next !== 0) next = (last + r.se() + 256) % 256;
    last = next === 0 ? last : next;
  }
}

/** The RBSP: emulation prevention bytes (00 00 03) removed, up to the next start code. */
function unescape(bytes, from) {
  const out = [];
  let zeros = 0;
  for (let i = from; i < bytes.length; i++) {
    const b = bytes[i];
    if (zeros >= 2 && b === 1) break;
    if (zeros >= 2 && b === 3) { zeros = 0; continue; }
    out.push(b);
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return Uint8Array.from(out);
}

class BitReader {
  constructor(bytes) { this.bytes = bytes; this.pos = 0; }

  bit() {
    const byte = this.bytes[this.pos >> 3];
    if (byte === undefined) throw new RangeError('sps ends early');
    const v = (byte >> (7 - (this.pos & 7))) & 1;
    this.pos += 1;
    return v;
  }

  ue() {
    let zeros = 0;
    while (this.bit() === 0) {
      zeros += 1;
      if (zeros > 31) throw new RangeError('bad exp-golomb code');
    }
    let v = 0;
    for (let i = 0; i < zeros; i++) v = v * 2 + this.bit();
    return 2 ** zeros - 1 + v;
  }

  se() {
    const k = this.ue();
    return k % 2 === 1 ? (k + 1) / 2 : -(k / 2);
  }
}
