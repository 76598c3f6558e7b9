import { configDefaults, defineConfig } from 'vitest/config';
import type { TestModule } from 'vitest/node';

/** Ends the run with the plain `N passed, N failed, N skipped` line that CI reads. */
const summaryLine = {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const count = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') count.passed++;
        else if (state === 'failed') count.failed++;
        else count.skipped++;
      }
    }
    process.stdout.write(`\n${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped\n`);
  },
};

/**
 * The inner loop (`npm run test:unit`): the pure core and the run's logic. No Apache, no bundle,
 * no synth, no emulator (dynalite, fauxqs): the few files of test/app that start them are left to
 * the integration set, and tests tagged `slow` (scale runs of a thousand targets) are filtered
 * out by the script, though `npm test` runs them.
 */
const UNIT_TESTS = ['test/core/**/*.test.ts', 'test/app/**/*.test.ts'];
const NOT_UNIT_TESTS = [
  'test/**/*.apache.test.ts',
  'test/app/run.test.ts',
  'test/app/shards.test.ts',
  'test/app/accounting/pageAccounting.model.test.ts',
];

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', summaryLine],
    tags: [{ name: 'slow', description: 'seconds or more: left out of `npm run test:unit`, run by `npm test`' }],
    // The floor of the pure core, measured by its own tests (`npm run coverage`: test/core only),
    // a little below what they reach (96.44 / 91.92 / 98.39 / 97.87 % when it was set): raise it as
    // tests are added, never lower it to let a change through.
    coverage: {
      provider: 'v8',
      include: ['src/core/**/*.ts'],
      reporter: ['text-summary', ['text', { skipFull: true }]],
      // Just below the figures measured (97.06 / 93.09 / 98.43 / 98.24 once the discovery alert, the
      // discovered keys and every state key had rows of their own).
      thresholds: { statements: 96, branches: 91, functions: 98, lines: 97 },
    },
    // Two disjoint sets, so `npm test` (both) runs each file once and `--project unit` runs the first.
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: UNIT_TESTS, exclude: [...configDefaults.exclude, ...NOT_UNIT_TESTS] },
      },
      { extends: true, test: { name: 'integration', include: ['test/!(core|app)/**/*.test.ts', ...NOT_UNIT_TESTS] } },
    ],
  },
});
