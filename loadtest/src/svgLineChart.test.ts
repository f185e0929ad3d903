import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineChartSvg } from './svgLineChart.js';

void test('the chart places points by value and escapes labels', () => {
  const svg = lineChartSvg({
    title: 'p99 <vs> connections', xLabel: 'connections', yLabel: 'ms',
    series: [{ name: 'gateway', points: [[0, 0], [100, 50]] }, { name: 'websockify', points: [[50, 100]] }],
    horizontalLine: { value: 40, label: '40 ms budget' },
    width: 400, height: 300,
  });
  assert.match(svg, /^<svg /);
  assert.match(svg, /p99 &lt;vs&gt; connections/);
  assert.equal((svg.match(/<circle /g) ?? []).length, 3);
  // x=0 sits on the left edge of the plot (margin 64), x=100 on the right (400-150)
  assert.match(svg, /<path d="M64\.0,[\d.]+ L250\.0,[\d.]+"/);
  assert.match(svg, /40 ms budget/);
  assert.match(svg, /<\/svg>$/);
});

void test('a log x axis spreads decades evenly', () => {
  const svg = lineChartSvg({ title: 't', xLabel: 'x', yLabel: 'y', logX: true, width: 400, height: 300,
    series: [{ name: 's', points: [[10, 1], [100, 1], [1000, 1]] }] });
  const xs = [...svg.matchAll(/<circle cx="([\d.]+)"/g)].map((match) => Number(match[1]));
  assert.equal(xs.length, 3);
  assert.ok(Math.abs((xs[1] ?? 0) - (xs[0] ?? 0) - ((xs[2] ?? 0) - (xs[1] ?? 0))) < 0.2, `x positions ${xs.join(',')}`);
});
