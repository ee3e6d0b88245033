import { ChartRepository } from './chart-repository.ts';

/**
 * opsgate's own chart repository for one backend: the configured folder, else the demo repository
 * with the simulator and none with a real cluster. The demo charts have common names (`webapp`,
 * `nginx`), and as a default next to a real cluster they were taken for in-house charts of the same
 * name and version (issue 30 N5).
 */
export function openAgentRepository(backend: 'simulator' | 'cli', charts: string | undefined): Promise<ChartRepository> {
  if (charts) return ChartRepository.open(charts);
  return backend === 'simulator' ? ChartRepository.open() : Promise.resolve(ChartRepository.none());
}
