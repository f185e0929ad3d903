// Where the built pages are, seen from a compiled test (web/dist/src/testing/).
import { fileURLToPath } from 'node:url';

export const publicDir = fileURLToPath(new URL('../../public/', import.meta.url));
export const labDir = fileURLToPath(new URL('../../lab/', import.meta.url));
