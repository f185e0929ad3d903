// The `project` message (docs/kiosk-protocol.md) as SessionOptions: the
// credentials, or the Remote Assistance invitation in `settings.assistance`,
// and the settings the gateway passed through (colour depth, GFX, codecs,
// performance flags). Used by the web engine (rdpEngine.js) and the tests, so
// both read the gateway's message the same way.

/**
 * @param {{ credentials?: { username: string, password: string, domain?: string },
 *   settings?: Record<string, unknown>, target?: { host: string } }} project
 * @param {{ width: number, height: number }} desktop the display's size
 * @returns {import('./lanternaRdp.js').SessionOptions}
 */
export function sessionOptionsFromProject(project, desktop) {
  const settings = project.settings ?? {};
  const assistance = settings.assistance;
  return {
    ...(project.credentials && !assistance ? {
      username: project.credentials.username,
      password: project.credentials.password,
      ...(project.credentials.domain !== undefined ? { domain: project.credentials.domain } : {}),
    } : {}),
    ...(assistance ? { assistance: { invitation: String(assistance.invitation), password: String(assistance.password ?? '') } } : {}),
    width: desktop.width,
    height: desktop.height,
    ...(project.target?.host ? { serverName: project.target.host } : {}),
    ...(settings.colorDepth !== undefined ? { colorDepth: settings.colorDepth } : {}),
    ...(settings.gfx !== undefined ? { gfx: settings.gfx } : {}),
    ...(settings.codecs !== undefined ? { codecs: settings.codecs } : {}),
    ...(settings.performance !== undefined ? { performance: settings.performance } : {}),
  };
}
