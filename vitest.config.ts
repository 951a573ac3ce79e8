import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { configDefaults, defineConfig } from 'vitest/config'

/** Test files that replace a module (`vi.mock`): they run isolated (see the everyday project). */
const MOCKING = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter(
    (f) =>
      f.endsWith('.test.ts') &&
      !/^(process|browser)\//.test(f) &&
      /\bvi\.(do)?mock\(/.test(readFileSync(path.join('test', f), 'utf8')),
  )
  .map((f) => path.join('test', f))

export default defineConfig({
  test: {
    // Each file gets its own database; PGlite boots in ~1 s, so allow for it on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The template database each file's database is copied from, made once per run (test/support/template-db.ts).
    globalSetup: ['test/support/global-setup.ts'],
    maxWorkers: 2,
    // `mailroom` processes the tests start run the sources (bin/mailroom.js, through tsx), so a
    // stale dist/ of a checkout is never what is tested; CI builds first and sets
    // MAILROOM_TEST_BUILT=1 to start the built JavaScript, as an installed package runs (a start
    // then costs about a third of the CPU).
    env: { MAILROOM_FROM_SOURCE: process.env.MAILROOM_TEST_BUILT === '1' ? '0' : '1' },
    // Two tiers, one runner. `npm test` runs the everyday one; `npm run test:process` the tests that
    // start `mailroom` processes (the CLI against a running service, workers killed mid-send, first
    // starts interrupted, several processes on one database): slower, and run by CI on both engines.
    // A file path given on the command line (`npx vitest run test/process/x.test.ts`) finds its tier.
    projects: [
      {
        extends: true,
        // One module graph per worker, reused file after file (isolate: false): importing the service
        // afresh for each of 150 files was half the suite's CPU. Each file still gets a database and an
        // app of its own (test/support/build-test-app.ts); nothing under src/ keeps state in a module
        // that a test could see from another file, apart from the mocks below.
        test: {
          name: 'everyday',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/process/**', 'test/browser/**', ...MOCKING],
          isolate: false,
        },
      },
      {
        extends: true,
        // Files that replace a module (vi.mock): a mock applies only to a fresh module graph.
        test: { name: 'everyday-mocks', include: MOCKING },
      },
      {
        extends: true,
        // Each file starts processes of its own: one file at a time, so their deadlines are their own.
        // A process's start (tsx, then PGlite's initdb on a first start) takes seconds, more on a busy machine:
        // a test that runs the CLI six times on the embedded database took 35 s while CI shared the cores,
        // and one first start 63 s (test/support/spawn-service.ts): a test has five minutes, a hung one still fails.
        test: {
          name: 'process',
          include: ['test/process/**/*.test.ts'],
          maxWorkers: 1,
          hookTimeout: 300_000,
          testTimeout: 300_000,
        },
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
