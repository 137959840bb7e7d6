export interface BenchResult {
  name: string;
  figures: Record<string, number | string>;
  targets: Array<{ what: string; met: boolean }>;
}
