#!/usr/bin/env node
// The `mailroom` command. A built copy (npm run build → dist/) runs as plain JavaScript; in a
// checkout without one, the TypeScript sources run through tsx.
import { existsSync } from 'node:fs'

const built = new URL('../dist/app/cli/main.js', import.meta.url)
if (existsSync(built) && process.env.MAILROOM_FROM_SOURCE !== '1') {
  await import(built.href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import(new URL('../src/app/cli/main.ts', import.meta.url).href)
}
