import { pgliteTemplateDump, postgresTemplate } from './template-db.js'

/**
 * Vitest's globalSetup: the run's template database is made here, once, before any test file
 * starts, so the files (each in a process of its own) find it made instead of racing to make it.
 */
export default async function setup(): Promise<void> {
  const adminUrl = process.env.TEST_DATABASE_URL
  if (adminUrl) await postgresTemplate(adminUrl)
  else await pgliteTemplateDump()
}
