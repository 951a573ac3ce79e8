import path from 'node:path'
import { int, oneOf, optionalFlag, optionalText, section, text } from './define.js'
import type { Env } from './index.js'

/** Which environment this is, where its data lives, and the secrets it starts from. */
export const deploymentSettings = section({
  title: 'Deployment: environment, database, secrets',
  keys: {
    MAILROOM_ENV: oneOf(['development', 'qa', 'sandbox', 'production'], {
      default: 'development',
      description:
        'production refuses the embedded database, a generated secret, a bootstrap client, the demo client and a missing MAILROOM_PUBLIC_URL',
    }),
    DATABASE_URL: optionalText({
      pattern: '^postgres(ql)?://',
      description:
        'PostgreSQL connection string, postgres://user@host:5432/db; unset: the embedded PGlite in MAILROOM_DATA_DIR/pglite',
    }),
    DATABASE_POOL_SIZE: int({
      minimum: 1,
      maximum: 200,
      default: 10,
      description: 'connections per process; about 2-4 x the database cores',
    }),
    MAILROOM_DATA_DIR: text({
      minLength: 1,
      default: './data',
      description: 'the embedded database, the generated master secret, the demo credentials and local images',
    }),
    MAILROOM_SECRET: optionalText({
      minLength: 32,
      secret: true,
      description:
        'master secret, at least 32 characters, every key is derived from it; unset: generated into the data dir (refused in production)',
    }),
    MAILROOM_PUBLIC_URL: optionalText({
      pattern: '^https?://[^/]+(/.*)?$',
      description:
        'absolute URL clients reach the service at, the same in every process; the token issuer derives from it, so pin it in any deployment; unset: http://localhost:PORT (refused in production)',
    }),
    MAILROOM_BOOTSTRAP_CLIENT: optionalText({
      pattern: '^[A-Za-z0-9._~-]{8,128}:[^:]{32,256}(:[A-Za-z0-9 ._~-]{1,100})?$',
      secret: true,
      description: 'clientId:clientSecret[:subscription], an API client ensured at every start; refused in production',
    }),
    MAILROOM_DEMO: optionalFlag({
      description:
        'create and print a demo client on first start; unset: true in development and sandbox, false elsewhere (refused in production)',
    }),
    RESTORE_HOLD_AFTER_MINUTES: int({
      minimum: 0,
      maximum: 43_200,
      default: 15,
      description:
        'after a restore (`mailroom restore`, `mailroom restore --mark`), emails and webhooks that were pending in the backup and are older than this are held for an operator (`mailroom held`) instead of sent again; 0: hold all of them (docs/backup.md)',
    }),
    LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      default: 'info',
      description: 'pino log level',
    }),
  },
})

export interface DeploymentConfig {
  env: Env['MAILROOM_ENV']
  dataDir: string
  database: { kind: 'postgres'; url: string; poolSize: number } | { kind: 'pglite'; dir: string }
  /** Absent: generated and kept in the data dir (refused in production). */
  masterSecret: string | undefined
  publicUrl: string
  /** MAILROOM_PUBLIC_URL was not set: publicUrl is http://localhost:PORT (never in production). */
  publicUrlFromPort: boolean
  bootstrapClient: { clientId: string; clientSecret: string; subscription: string } | undefined
  /** Create and print a demo client on first start (development and sandbox). */
  demo: boolean
  logLevel: Env['LOG_LEVEL']
  /** RESTORE_HOLD_AFTER_MINUTES: pending outbound work older than this at a restore is held (docs/backup.md). */
  restoreHoldAfterMinutes: number
}

export function deploymentConfig(env: Env): DeploymentConfig {
  const dataDir = path.resolve(env.MAILROOM_DATA_DIR)
  let bootstrapClient: DeploymentConfig['bootstrapClient']
  if (env.MAILROOM_BOOTSTRAP_CLIENT) {
    const [clientId, clientSecret, subscription] = env.MAILROOM_BOOTSTRAP_CLIENT.split(':') as [string, string, string?]
    bootstrapClient = { clientId, clientSecret, subscription: subscription ?? 'default' }
  }
  return {
    env: env.MAILROOM_ENV,
    dataDir,
    database: env.DATABASE_URL
      ? { kind: 'postgres', url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE }
      : { kind: 'pglite', dir: path.join(dataDir, 'pglite') },
    masterSecret: env.MAILROOM_SECRET,
    publicUrl: (env.MAILROOM_PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    publicUrlFromPort: env.MAILROOM_PUBLIC_URL === undefined,
    bootstrapClient,
    demo: env.MAILROOM_DEMO
      ? env.MAILROOM_DEMO === 'true'
      : env.MAILROOM_ENV === 'development' || env.MAILROOM_ENV === 'sandbox',
    logLevel: env.LOG_LEVEL,
    restoreHoldAfterMinutes: env.RESTORE_HOLD_AFTER_MINUTES,
  }
}

/** What production refuses. */
export function deploymentProblems(env: Env): string[] {
  if (env.MAILROOM_ENV !== 'production') return []
  const problems: string[] = []
  if (!env.DATABASE_URL) problems.push('DATABASE_URL: production refuses the embedded database; set a PostgreSQL URL')
  if (!env.MAILROOM_SECRET)
    problems.push('MAILROOM_SECRET: production refuses a generated secret; set one (32+ random characters)')
  if (env.MAILROOM_BOOTSTRAP_CLIENT)
    problems.push('MAILROOM_BOOTSTRAP_CLIENT: refused in production; create clients with `mailroom clients create`')
  if (env.MAILROOM_DEMO === 'true') problems.push('MAILROOM_DEMO: refused in production')
  // The issuer is built from it: processes behind one load balancer must all name the same one.
  if (!env.MAILROOM_PUBLIC_URL)
    problems.push(
      'MAILROOM_PUBLIC_URL: production needs the public URL clients reach the service at (the same in every process); the token issuer is built from it',
    )
  return problems
}
