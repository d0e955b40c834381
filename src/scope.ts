// The scope every tenant-owned row, graph node and Redis key carries: the tenant and the mode
// (`live`/`test`) that the API key or the analyst's session decides (CONVENTIONS.md rule 6).
export interface Scope {
  readonly tenantId: string;
  readonly mode: 'live' | 'test';
}
