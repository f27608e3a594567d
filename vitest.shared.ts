// The per-package vitest project settings, imported by each package's vitest.config.ts (a relative import, so
// vite bundles it into the config). Workspace imports resolve to TypeScript sources through the
// `strata-source` export condition, in vite's resolver and in any child process or worker tests start.
import { defineProject } from 'vitest/config';

export const sourceConditions = ['strata-source'];

/**
 * `alone`: the project's files run after every other project's, one at a time (sequence group 1, one worker): for
 * suites that probe the kernel's view of this process's memory and fail their self-test beside other test load.
 */
export function strataProject(name: string, options: { readonly alone?: boolean } = {}) {
  return defineProject({
    resolve: { conditions: sourceConditions },
    ssr: { resolve: { conditions: sourceConditions, externalConditions: sourceConditions } },
    test: {
      name,
      include: ['test/**/*.test.ts'],
      environment: 'node',
      // Real files, real native addons: give slow machines room, but no test should depend on it.
      testTimeout: 60_000,
      hookTimeout: 60_000,
      ...(options.alone === true ? { sequence: { groupOrder: 1 }, maxWorkers: 1 } : {}),
    },
  });
}
