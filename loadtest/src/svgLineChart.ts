// A small, dependency-free SVG line chart for the HTML report: linear or log
// x axis, several series, an optional horizontal budget line.

export interface ChartSeries { name: string; points: readonly (readonly [number, number])[] }

export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly ChartSeries[];
  logX?: boolean;
  horizontalLine?: { value: number; label: string };
  width?: number;
  height?: number;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf', '#7f7f7f'];

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char);
}

function niceTicks(min: number, max: number, count: number): number[] {
  const span = max - min || 1;
  const rough = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= rough) ?? magnitude * 10;
  const ticks: number[] = [];
  for (let value = Math.ceil(min / step) * step; value <= max + step * 1e-9; value += step) ticks.push(Number(value.toPrecision(12)));
  return ticks;
}

function format(value: number): string {
  return Math.abs(value) >= 1000 ? value.toLocaleString('en-US') : String(Number(value.toPrecision(4)));
}

export function lineChartSvg(options: LineChartOptions): string {
  const width = options.width ?? 640;
  const height = options.height ?? 360;
  const margin = { left: 64, right: 150, top: 36, bottom: 48 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const all = options.series.flatMap((series) => series.points);
  const xs = all.map(([x]) => x);
  const ys = all.map(([, y]) => y).concat(options.horizontalLine ? [options.horizontalLine.value] : []);
  const logX = options.logX === true && xs.every((x) => x > 0);
  const tx = (x: number): number => (logX ? Math.log10(x) : x);
  const xMin = xs.length > 0 ? Math.min(...xs.map(tx)) : 0;
  const xMax = xs.length > 0 ? Math.max(...xs.map(tx)) : 1;
  const yMax = ys.length > 0 ? Math.max(...ys) * 1.08 : 1;
  const sx = (x: number): number => margin.left + ((tx(x) - xMin) / (xMax - xMin || 1)) * plotW;
  const sy = (y: number): number => margin.top + plotH - (y / (yMax || 1)) * plotH;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  parts.push(`<text x="${width / 2 - margin.right / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(options.title)}</text>`);
  parts.push(`<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`);
  for (const tick of niceTicks(0, yMax, 5)) {
    parts.push(`<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${sy(tick)}" y2="${sy(tick)}" stroke="#eee"/>`);
    parts.push(`<text x="${margin.left - 6}" y="${sy(tick) + 4}" text-anchor="end">${format(tick)}</text>`);
  }
  const xTicks = logX ? [...new Set(xs)].sort((a, b) => a - b) : niceTicks(xMin, xMax, 6);
  for (const tick of xTicks) {
    parts.push(`<text x="${sx(tick)}" y="${margin.top + plotH + 16}" text-anchor="middle">${format(tick)}</text>`);
  }
  parts.push(`<text x="${margin.left + plotW / 2}" y="${height - 10}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`);
  parts.push(`<text transform="translate(16 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}</text>`);
  if (options.horizontalLine) {
    const y = sy(options.horizontalLine.value);
    parts.push(`<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${y}" y2="${y}" stroke="#000" stroke-dasharray="6 4"/>`);
    parts.push(`<text x="${margin.left + plotW - 4}" y="${y - 4}" text-anchor="end">${escapeXml(options.horizontalLine.label)}</text>`);
  }
  options.series.forEach((series, index) => {
    const color = COLORS[index % COLORS.length] ?? '#000';
    const sorted = [...series.points].sort((a, b) => a[0] - b[0]);
    if (sorted.length > 0) {
      const path = sorted.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
      parts.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="2"/>`);
      for (const [x, y] of sorted) parts.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="3" fill="${color}"><title>${escapeXml(`${series.name}: ${format(x)} → ${format(y)}`)}</title></circle>`);
    }
    const ly = margin.top + 14 + index * 16;
    parts.push(`<line x1="${width - margin.right + 10}" x2="${width - margin.right + 28}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2"/>`);
    parts.push(`<text x="${width - margin.right + 32}" y="${ly}">${escapeXml(series.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}
