// The WS-Discovery responder alone, for wsdBench.ts: on loopback, on the UDP
// port given, with N displays online and the rate limits given. It prints
// "ready" and then runs until killed. The bench pins it to one core.
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { createWsdUdpMetrics, WsdResponder } from '@lanterna/gateway';

const [portText = '0', displaysText = '1', appMaxDelayText = '0', perSourceText = '1000000'] = process.argv.slice(2);
const responder = await WsdResponder.start({
  interfaces: ['lo'], ipv6: false, appMaxDelayMs: Number(appMaxDelayText), perSourceRate: Number(perSourceText), instanceId: 1,
  listen: { port: 8443, tls: true },
  online: () => Promise.resolve({ online: Array.from({ length: Number(displaysText) }, (_, i) => ({ id: `room${i}`, endpoint: `urn:uuid:00000000-0000-5000-8000-${String(i).padStart(12, '0')}` })) }),
  logger: pino({ level: 'silent' }), metrics: createWsdUdpMetrics(new Registry()), port: Number(portText),
});
await responder.refresh();
process.stdout.write('ready\n');
process.once('SIGTERM', () => void responder.close().then(() => process.exit(0)));
