// The slide scene's picture as ImageMagick draw commands (MVG): what a
// projector shows most of the day. A title band with a logo, bullet text at
// presentation sizes, a bar-and-line chart with flat colours and
// anti-aliased strokes, a quotation box, a photograph and a footer, in
// DejaVu Sans (Debian's fonts-dejavu-core) with FreeType's anti-aliasing.
// Coordinates are for 1920×1080; other sizes scale the whole drawing.

export const SLIDE_DESIGN = { width: 1920, height: 1080 } as const;

/** Where the photograph goes, in design coordinates. */
export const SLIDE_PHOTO_BOX = { x: 1010, y: 690, width: 814, height: 300 } as const;

export interface SlideRegion {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The slide's parts in design coordinates, for per-region figures (PSNR by region). */
export const SLIDE_REGIONS: readonly SlideRegion[] = [
  { name: 'title band and logo', x: 0, y: 0, width: 1920, height: 160 },
  { name: 'bullet text', x: 80, y: 200, width: 880, height: 560 },
  { name: 'quotation box', x: 80, y: 780, width: 880, height: 210 },
  { name: 'chart', x: 1000, y: 190, width: 840, height: 480 },
  { name: 'photo', ...SLIDE_PHOTO_BOX },
  { name: 'footer', x: 0, y: 1000, width: 1920, height: 80 },
];

const FONT_DIR = '/usr/share/fonts/truetype/dejavu';
const REGULAR = `${FONT_DIR}/DejaVuSans.ttf`;
const BOLD = `${FONT_DIR}/DejaVuSans-Bold.ttf`;

const NAVY = '#1f3a5f';
const ORANGE = '#f28c28';
const INK = '#222831';
const GREY = '#5a6b7d';

/** One MVG text primitive; MVG strings are single-quoted, so quotes in the text are escaped. */
function text(x: number, y: number, content: string, font: string, size: number, fill: string, anchor: 'start' | 'end' | 'middle' = 'start'): string {
  return [
    `font '${font}'`, `font-size ${size}`, `fill '${fill}'`, 'stroke none', `text-anchor ${anchor}`,
    `text ${x},${y} '${content.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`,
  ].join('\n');
}

function titleBand(): string[] {
  return [
    `fill '${NAVY}'`, 'rectangle 0,0 1920,150',
    `fill '${ORANGE}'`, 'rectangle 0,150 1920,158',
    text(96, 100, 'Wireless projection: year one', BOLD, 60, '#ffffff'),
    // logo: a lantern (orange disc, pale flame) and the word mark
    `fill '${ORANGE}'`, 'circle 1790,75 1790,27',
    "fill '#fff3d6'", "path 'M 1790,44 C 1806,64 1810,80 1802,96 C 1797,106 1783,106 1778,96 C 1770,80 1774,64 1790,44 Z'",
    `fill '${ORANGE}'`, "path 'M 1790,70 C 1797,80 1798,88 1794,95 C 1792,99 1788,99 1786,95 C 1782,88 1783,80 1790,70 Z'",
    text(1722, 88, 'lanterna', BOLD, 34, '#ffffff', 'end'),
  ];
}

function bullets(): string[] {
  const lines: { level: 1 | 2; words: string }[] = [
    { level: 1, words: '120 rooms now present without cables' },
    { level: 1, words: 'First picture in 2.1 s (median)' },
    { level: 1, words: 'Any laptop: Windows, macOS, Linux' },
    { level: 2, words: 'Built-in Remote Desktop, nothing to install' },
    { level: 2, words: 'Or the presenter page in a browser' },
    { level: 1, words: 'Displays update themselves overnight' },
    { level: 1, words: 'Next: lecture halls and the atrium' },
  ];
  const out = [text(96, 238, 'Meeting rooms, classrooms and the main hall', REGULAR, 32, GREY)];
  let y = 330;
  for (const line of lines) {
    if (line.level === 1) {
      out.push(`fill '${NAVY}'`, 'stroke none', `circle 112,${y - 12} 112,${y - 4}`, text(140, y, line.words, REGULAR, 36, INK));
      y += 66;
    } else {
      out.push(`fill '${ORANGE}'`, 'stroke none', `rectangle 150,${y - 16} 162,${y - 10}`, text(180, y, line.words, REGULAR, 30, GREY));
      y += 56;
    }
  }
  return out;
}

function quotation(): string[] {
  return [
    "fill '#eef3f8'", 'stroke none', 'roundrectangle 96,800 940,970 14,14',
    `fill '${ORANGE}'`, 'rectangle 96,800 104,970',
    text(132, 872, '\u201cIt just shows up on the screen.\u201d', BOLD, 34, NAVY),
    text(132, 930, '\u2014 facilities survey, 412 answers', REGULAR, 26, GREY),
  ];
}

function chart(): string[] {
  const left = 1090;
  const right = 1800;
  const top = 270;
  const bottom = 600;
  const rooms = [18, 34, 52, 71, 96, 120];
  const satisfaction = [62, 70, 74, 81, 86, 91]; // percent, on the same 0..140 / 0..100 axis height
  const out = [text(1010, 228, 'Rooms using Lanterna, by quarter', BOLD, 28, INK)];
  // grid and axis labels
  for (let step = 0; step <= 4; step += 1) {
    const y = bottom - ((bottom - top) * step) / 4;
    out.push("stroke '#d0d5dc'", 'stroke-width 1', 'fill none', `line ${left},${y + 0.5} ${right},${y + 0.5}`);
    out.push(text(left - 14, y + 7, String(step * 35), REGULAR, 20, GREY, 'end'));
  }
  const slot = (right - left) / rooms.length;
  rooms.forEach((value, index) => {
    const x0 = left + slot * index + slot * 0.22;
    const x1 = left + slot * (index + 1) - slot * 0.22;
    const y0 = bottom - ((bottom - top) * value) / 140;
    out.push("fill '#2e6da4'", 'stroke none', `rectangle ${x0.toFixed(0)},${y0.toFixed(0)} ${x1.toFixed(0)},${bottom}`);
    out.push(text(Math.round((x0 + x1) / 2), bottom + 32, `Q${index + 1}`, REGULAR, 22, INK, 'middle'));
  });
  const points = satisfaction.map((value, index) => [left + slot * (index + 0.5), bottom - ((bottom - top) * value) / 100] as const);
  out.push(`stroke '${ORANGE}'`, 'stroke-width 5', 'stroke-linejoin round', 'stroke-linecap round', 'fill none',
    `polyline ${points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ')}`);
  for (const [x, y] of points) out.push(`stroke '${ORANGE}'`, 'stroke-width 4', "fill '#ffffff'", `circle ${x.toFixed(1)},${y.toFixed(1)} ${(x + 8).toFixed(1)},${y.toFixed(1)}`);
  // legend
  out.push("fill '#2e6da4'", 'stroke none', 'rectangle 1450,648 1472,664', text(1482, 664, 'rooms', REGULAR, 20, INK));
  out.push(`stroke '${ORANGE}'`, 'stroke-width 5', 'fill none', 'line 1580,656 1610,656', text(1620, 664, 'satisfied (%)', REGULAR, 20, INK));
  return out;
}

function footer(): string[] {
  return [
    "stroke '#c8ced6'", 'stroke-width 1', 'fill none', 'line 96,1020.5 1824,1020.5',
    text(96, 1056, 'Lanterna \u00b7 network projector \u00b7 internal review', REGULAR, 20, GREY),
    text(1824, 1056, '7', BOLD, 20, GREY, 'end'),
  ];
}

/**
 * MVG for the slide at width × height on a white page; `photoPath` is the
 * photograph (already at its scaled size), composited unscaled.
 */
export function slideMvg(width: number, height: number, photoPath: string): string {
  const sx = width / SLIDE_DESIGN.width;
  const sy = height / SLIDE_DESIGN.height;
  const photo = {
    x: Math.round(SLIDE_PHOTO_BOX.x * sx), y: Math.round(SLIDE_PHOTO_BOX.y * sy),
    width: Math.round(SLIDE_PHOTO_BOX.width * sx), height: Math.round(SLIDE_PHOTO_BOX.height * sy),
  };
  return [
    `viewbox 0 0 ${width} ${height}`,
    "fill '#ffffff'", `rectangle 0,0 ${width},${height}`,
    'push graphic-context', `scale ${sx},${sy}`,
    ...titleBand(), ...bullets(), ...quotation(), ...chart(), ...footer(),
    "stroke '#c8ced6'", 'stroke-width 1', 'fill none',
    `rectangle ${SLIDE_PHOTO_BOX.x - 1.5},${SLIDE_PHOTO_BOX.y - 1.5} ${SLIDE_PHOTO_BOX.x + SLIDE_PHOTO_BOX.width + 0.5},${SLIDE_PHOTO_BOX.y + SLIDE_PHOTO_BOX.height + 0.5}`,
    'pop graphic-context',
    `image over ${photo.x},${photo.y} ${photo.width},${photo.height} '${photoPath}'`,
    '',
  ].join('\n');
}

/** The photograph's size on a width × height screen. */
export function slidePhotoSize(width: number, height: number): { width: number; height: number } {
  return {
    width: Math.round((SLIDE_PHOTO_BOX.width * width) / SLIDE_DESIGN.width),
    height: Math.round((SLIDE_PHOTO_BOX.height * height) / SLIDE_DESIGN.height),
  };
}
