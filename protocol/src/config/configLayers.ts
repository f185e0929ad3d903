// How a command's configuration is layered (the gateway's and the kiosk
// launcher's alike): a JSON file's object first, then single fields set over
// it from environment variables or flags, then one schema check of the whole.
// The reading of files and environments stays with each command.

/**
 * A configuration file's text as the object the other layers go over: JSON
 * whose top level is an object. Throws with what is wrong (the caller adds
 * the file's name).
 */
export function parseConfigObject(text: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('top level must be an object');
  return parsed as Record<string, unknown>;
}

/**
 * Sets one field of a raw configuration (`['listen', 'port']`), making the
 * objects on the way and replacing what is not an object there: the value
 * given last wins, and the schema check that follows reports it if it is bad.
 */
export function setConfigField(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1] ?? ''] = value;
}
