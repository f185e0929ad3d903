// One of several processes recording first uses into one pin file at once
// (certificatePolicy.test.ts): argv = file, worker number, fingerprint.
import { FilePinStore } from './pinStore.js';

const [path, worker, fingerprint] = process.argv.slice(2);
if (!path || !worker || !fingerprint) throw new Error('usage: pinStoreWorker FILE N FINGERPRINT');
const store = new FilePinStore(path);
for (let i = 0; i < 25; i += 1) await store.recordMissing([`w${worker}-s${i}.corp:3389`], fingerprint);
