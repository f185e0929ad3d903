// Turns a ramp's steps into the whitepaper's answer: the largest connection
// count whose response time stays inside the budget. A step measured with a
// saturated generator says nothing about the relay, so it cannot count.
export interface StepVerdictInput {
  connections: number;
  established: number;
  p99Ms: number;
  meanMs: number;
  generatorSaturated: boolean;
  /** Failed or missing responses: a step that lost sessions is over capacity. */
  lostSessions: number;
}

export interface Capacity {
  /** Largest count reached with p99 under the budget before the first step over it; 0 if none. */
  byP99: number;
  /** The same with the mean response time (the whitepaper's criterion). */
  byMean: number;
  /** True when the ramp ended (limit or saturation) before crossing the budget: capacity is at least this. */
  lowerBoundOnly: boolean;
  /** Why the ramp's answer is limited, if it is. */
  note: string | undefined;
}

function largestUnder(steps: readonly StepVerdictInput[], budgetMs: number, value: (step: StepVerdictInput) => number): { count: number; crossed: boolean; saturatedFirst: boolean } {
  let count = 0;
  for (const step of steps) {
    if (step.generatorSaturated) return { count, crossed: false, saturatedFirst: true };
    if (value(step) >= budgetMs || step.lostSessions > 0 || step.established < step.connections) return { count, crossed: true, saturatedFirst: false };
    count = step.connections;
  }
  return { count, crossed: false, saturatedFirst: false };
}

export function judgeCapacity(steps: readonly StepVerdictInput[], budgetMs: number): Capacity {
  const byP99 = largestUnder(steps, budgetMs, (step) => step.p99Ms);
  const byMean = largestUnder(steps, budgetMs, (step) => step.meanMs);
  let note: string | undefined;
  if (byP99.saturatedFirst) note = 'generator saturated before the relay crossed the budget';
  else if (!byP99.crossed) note = 'ramp ended (connection or time limit) inside the budget';
  return { byP99: byP99.count, byMean: byMean.count, lowerBoundOnly: !byP99.crossed, note };
}
