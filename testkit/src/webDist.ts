// Where the web workspace's built pages are (npm run build -w web), seen from
// this module (testkit/src/ or testkit/dist/): dist/public/ is what the gateway
// serves, dist/lab-pages/ the renderer and replay lab pages for tests and benches.
import { fileURLToPath } from 'node:url';

export const publicDir = fileURLToPath(new URL('../../web/dist/public/', import.meta.url));
export const labDir = fileURLToPath(new URL('../../web/dist/lab-pages/', import.meta.url));
