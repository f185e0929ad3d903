import { test } from 'node:test';
import assert from 'node:assert/strict';
import { byLabel, parsePrometheusText } from './prometheusText.js';

void test('series with and without labels, comments skipped, by-label sums', () => {
  const samples = parsePrometheusText([
    '# HELP nodejs_active_resources Number of active resources',
    '# TYPE nodejs_active_resources gauge',
    'nodejs_active_resources{type="TCPSocketWrap"} 1503',
    'nodejs_active_resources{type="Timeout"} 12',
    'nodejs_active_resources{type="Timeout",worker="2"} 3',
    'nodejs_active_resources_total 1519',
    'lanterna_sessions_active 500',
    'broken line',
  ].join('\n'));
  assert.equal(samples.get('lanterna_sessions_active'), 500);
  assert.equal(samples.get('nodejs_active_resources_total'), 1519);
  assert.deepEqual(byLabel(samples, 'nodejs_active_resources', 'type'), { TCPSocketWrap: 1503, Timeout: 15 });
  assert.equal(samples.size, 5);
});
