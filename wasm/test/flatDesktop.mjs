// The RDP server most wasm tests use, from the lab: an Xvfb display showing one
// flat colour (a session proves it drew the real desktop by its centre pixel),
// shared by FreeRDP's shadow server. The lab stops everything at lab.close().
export const DESKTOP_RGB = [0x33, 0x66, 0xcc];

/** Lossy codecs (RemoteFX, progressive) bring a flat colour back within a few steps. */
export function nearDesktop(rgb) {
  return rgb !== null && rgb !== undefined && rgb.every((v, i) => Math.abs(v - DESKTOP_RGB[i]) <= 6);
}

/**
 * @param {import('@lanterna/lab').Lab} lab
 * @param {{ auth: 'tls' | 'nla', width?: number, height?: number }} options
 */
export async function startFlatDesktop(lab, { auth, width = 1024, height = 768 }) {
  const display = await lab.display({ width, height });
  const colour = `#${DESKTOP_RGB.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
  await lab.run({ component: 'xsetroot', command: 'xsetroot', args: ['-solid', colour], env: { ...display.env } });
  return lab.shadowServer({ display, auth });
}
