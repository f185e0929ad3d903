// Emscripten's pthread glue is a classic script, which a worker runs with
// importScripts: a synchronous load with no deadline of its own. A script that
// never arrives would freeze the worker, and every timer it set with it (a
// Firefox share stayed "Connecting…" with its 30 s and 15 s deadlines never
// firing). So the script is first fetched asynchronously, under a deadline
// that can fire; importScripts then takes it from the HTTP cache (the gateway
// serves it with max-age=300), and the pool workers' own loads of it too.
export async function importClassicScript(url, deadlineMs) {
  const response = await fetch(url, { signal: AbortSignal.timeout(deadlineMs) });
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  // the body is read under the same deadline
  await response.arrayBuffer();
  globalThis.importScripts(url);
}
