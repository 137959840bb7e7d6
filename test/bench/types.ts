export interface BenchResult {
  name: string;
  figures: Record<string, number | string>;
  /** Each target with the figure it is judged on, and whether it is met (PASS) or not (MISS). */
  targets: Array<{ what: string; value?: number | string; met: boolean }>;
}
