// One vitest run over every workspace package: each package's own vitest.config.ts is a project.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'tools/*'],
    // Both cores: most suites wait on child processes, real files and worker threads; `npm test` stays well under
    // 15 minutes on 2 cores (one worker: ~15 min of vitest alone).
    maxWorkers: 2,
  },
});
