import { configDefaults, defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // Each file gets its own database; PGlite boots in ~1 s, so allow for it on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The template database each file's database is copied from, made once per run (test/support/template-db.ts).
    globalSetup: ['test/support/global-setup.ts'],
    maxWorkers: 2,
    // Two tiers, one runner. `npm test` runs the everyday one; `npm run test:process` the tests that
    // start `mailroom` processes (the CLI against a running service, workers killed mid-send, first
    // starts interrupted, several processes on one database): slower, and run by CI on both engines.
    // A file path given on the command line (`npx vitest run test/process/x.test.ts`) finds its tier.
    projects: [
      {
        extends: true,
        test: {
          name: 'everyday',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/process/**', 'test/browser/**'],
        },
      },
      {
        extends: true,
        // Each file starts processes of its own: one file at a time, so their deadlines are their own.
        // A process's start (tsx, then PGlite's initdb on a first start) takes seconds, more on a busy machine.
        test: { name: 'process', include: ['test/process/**/*.test.ts'], maxWorkers: 1, hookTimeout: 180_000 },
      },
      {
        extends: true,
        // The console in Debian's Chromium (playwright-core): one file at a time, one browser each.
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          maxWorkers: 1,
          hookTimeout: 180_000,
          testTimeout: 180_000,
        },
      },
    ],
  },
})
