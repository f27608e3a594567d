// One vitest run over every workspace package: each package's own vitest.config.ts is a project.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'tools/*'],
  },
});
