// Which CPUs the relay and the load side (generators, echo host) get. With
// enough cores they are disjoint; on a small machine the load side has to
// share, and the report says so.

export interface CpuLayout {
  relayCpus: string;
  loadCpus: string;
  /** Per farm instance, the CPU list it is pinned to. */
  instanceCpus: string[];
  shared: boolean;
}

function list(cpus: number[]): string { return cpus.join(','); }

export function planCpuLayout(totalCpus: number, relayCores: number, instances = 1): CpuLayout {
  const all = Array.from({ length: totalCpus }, (_unused, index) => index);
  const relay = all.slice(0, Math.min(relayCores, totalCpus));
  const rest = all.slice(relay.length);
  const load = rest.length > 0 ? rest : all;
  const instanceCpus = Array.from({ length: instances }, (_unused, index) => {
    const perInstance = Math.max(1, Math.floor(relay.length / instances));
    const start = (index * perInstance) % relay.length;
    return list(relay.slice(start, start + perInstance));
  });
  return { relayCpus: list(relay), loadCpus: list(load), instanceCpus, shared: rest.length === 0 };
}
