import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planCpuLayout } from './cpuLayout.js';
import { haproxyConfig } from '@lanterna/testkit';

void test('the relay and the load side get disjoint cpus when there are enough', () => {
  assert.deepEqual(planCpuLayout(2, 1), { relayCpus: '0', loadCpus: '1', instanceCpus: ['0'], shared: false });
  assert.deepEqual(planCpuLayout(8, 4, 2), { relayCpus: '0,1,2,3', loadCpus: '4,5,6,7', instanceCpus: ['0,1', '2,3'], shared: false });
});

void test('on a small machine the load side shares and says so', () => {
  assert.deepEqual(planCpuLayout(2, 2, 2), { relayCpus: '0,1', loadCpus: '0,1', instanceCpus: ['0', '1'], shared: true });
  assert.equal(planCpuLayout(1, 4).shared, true);
});

void test('the farm balancer keeps a display on one instance by source address', () => {
  const config = haproxyConfig({ listenPort: 9000, backendPorts: [9001, 9002], maxConnections: 5000 });
  assert.match(config, /balance source/);
  assert.match(config, /bind 127\.0\.0\.1:9000/);
  assert.match(config, /server gw0 127\.0\.0\.1:9001/);
  assert.match(config, /server gw1 127\.0\.0\.1:9002/);
  assert.match(config, /mode tcp/);
  // a dead instance is left at its first refused connection, the display redispatched
  assert.match(config, /option redispatch 1/);
  assert.match(config, /default-server check .*observe layer4 error-limit 1 on-error mark-down/);
});
