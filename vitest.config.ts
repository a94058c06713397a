import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:assembly` (TEST_RUNTIME=assembly) runs the end-to-end files against the synthesized cloud assembly, and
 * the files of test/assembly, which only run so; the other runs leave test/assembly out.
 */
const assembly = process.env.TEST_RUNTIME === 'assembly';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: assembly ? [] : ['test/assembly/**'],
    globalSetup: [
      'test/support/cli-bundles-setup.ts',
      'test/support/web-pages-setup.ts',
      ...(assembly ? ['test/support/assembly-setup.ts'] : []),
    ],
    // Each file runs in its own process: integration files each start a local runtime, and the store reads its
    // configuration from the environment when it loads.
    pool: 'forks',
    // Two files at a time at least: most of a file's time goes to waiting (on its runtime, a browser, a timer), so a
    // 2-core machine runs the suite in far less time than one file after another (vitest's default there).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      NODE_NO_WARNINGS: '1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    coverage: {
      provider: 'v8',
      include: ['shared/**/*.ts', 'functions/**/*.ts', 'infra/**/*.ts'],
      exclude: ['shared/cli/**', 'infra/local/start.ts', 'infra/app.ts', '**/*.d.ts'],
      thresholds: { lines: 90, functions: 92, branches: 82, statements: 88 },
    },
  },
});
