// Published figures of "RD Gateway Capacity Planning in Windows Server 2008
// R2" (Microsoft, July 2010) that the project summary records
// (the project's ARCHITECTURE.md in ../shared/ beside the repository, "What the seeds ask us to beat"). Only
// figures we hold are listed; other cells of its tables show "n/a" here.

export const WHITEPAPER_TITLE = 'RD Gateway Capacity Planning in Windows Server 2008 R2 (Microsoft, 2010)';
export const WHITEPAPER_BUDGET_MS = 40;
export const WHITEPAPER_CORES = 4;

export interface PublishedCapacity { connections: number; cores: number }

export const WHITEPAPER_CAPACITY: Readonly<Record<string, PublishedCapacity>> = {
  'kw-v1': { connections: 1230, cores: WHITEPAPER_CORES },
  'kw-v2.2': { connections: 1173, cores: WHITEPAPER_CORES },
};

/** Capacity gained per added server in the whitepaper's farm, as a fraction of one server's. */
export const WHITEPAPER_FARM_SCALING = 0.6;
