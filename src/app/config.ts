import { Value } from '@sinclair/typebox/value'
import { accessConfig, type AccessConfig } from './settings/access.js'
import { deploymentConfig, deploymentProblems, type DeploymentConfig } from './settings/deployment.js'
import { imagesConfig, imagesProblems, type ImagesConfig } from './settings/images.js'
import { EnvSchema, type Env } from './settings/index.js'
import { limitsConfig, limitsProblems, type LimitsConfig } from './settings/limits.js'
import { notificationsConfig, notificationsProblems } from './settings/notifications.js'
import { reportsConfig, reportsProblems, type ReportsConfig } from './settings/reports.js'
import { serverConfig, serverProblems, type ServerConfig } from './settings/server.js'
import { webhooksConfig, webhooksProblems } from './settings/webhooks.js'

/**
 * Every setting of the service, read once from the environment, validated, frozen. Nothing else in
 * the code base reads process.env. The keys, their bounds and descriptions live in the tables of
 * ./settings/ (one per concern); this file only validates them together and assembles the result.
 */
export type Config = DeploymentConfig &
  ServerConfig &
  AccessConfig &
  ImagesConfig &
  ReturnType<typeof webhooksConfig> &
  ReturnType<typeof notificationsConfig> &
  ReportsConfig &
  LimitsConfig

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

/** Rules across keys, checked even when some key is malformed, so one run lists every problem. */
const crossKeyProblems = (env: Env): string[] => [
  ...deploymentProblems(env),
  ...serverProblems(env),
  ...imagesProblems(env),
  ...webhooksProblems(env),
  ...notificationsProblems(env),
  ...reportsProblems(env),
  ...limitsProblems(env),
]

function schemaProblems(raw: Record<string, unknown>, withDefaults: unknown): string[] {
  const problems = [...Value.Errors(EnvSchema, withDefaults)].map((e) => {
    const key = e.path.replace(/^\//, '')
    const shown =
      e.schema.secret || EnvSchema.properties[key as keyof Env]?.secret ? '(hidden)' : JSON.stringify(raw[key])
    const choices = (e.schema.anyOf as Array<{ const?: unknown }> | undefined)?.map((m) => m.const)
    const message = choices ? `must be one of ${choices.join(', ')}` : e.message
    return `${key}=${shown}: ${e.schema.description ? `${message} (${e.schema.description})` : message}`
  })
  // Unions report one error per member; keep each key's first message.
  return [...new Map(problems.map((p) => [p.split('=')[0], p])).values()]
}

export function loadConfig(source: Record<string, string | undefined> = process.env): Readonly<Config> {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(EnvSchema.properties)) {
    const v = source[key]
    if (v !== undefined && v !== '') raw[key] = v
  }
  const withDefaults = Value.Default(EnvSchema, Value.Convert(EnvSchema, raw))
  const env = withDefaults as Env
  const problems = [...schemaProblems(raw, withDefaults), ...crossKeyProblems(env)]
  if (problems.length > 0) throw new ConfigError(problems)
  return Object.freeze({
    ...deploymentConfig(env),
    ...serverConfig(env),
    ...accessConfig(env),
    ...imagesConfig(env),
    ...webhooksConfig(env),
    ...notificationsConfig(env),
    ...reportsConfig(env),
    ...limitsConfig(env),
  })
}

/** The token issuer: one per public URL and region, so a token minted for `ca` is refused by `us`. */
export function issuerOf(config: Pick<Config, 'publicUrl' | 'prefixes' | 'authRegion'>): string {
  return `${config.publicUrl}${config.prefixes.auth}/${config.authRegion}`
}

/**
 * Whether a token's `iss` is this deployment's. With MAILROOM_PUBLIC_URL (required in production)
 * only the one issuer. Without it (development), each process names itself after its own port, so
 * processes on one database on several ports accept each other's `http://localhost:<port>` issuer
 * of the same prefix and region: the port is not part of the deployment's identity, the signing
 * keys (shared through the database) are. Another region or prefix is still refused.
 */
export function issuerAcceptor(
  config: Pick<Config, 'publicUrl' | 'publicUrlFromPort' | 'prefixes' | 'authRegion'>,
): (iss: unknown) => boolean {
  const own = issuerOf(config)
  if (!config.publicUrlFromPort) return (iss) => iss === own
  const tail = `${config.prefixes.auth}/${config.authRegion}`
  return (iss) =>
    iss === own ||
    (typeof iss === 'string' &&
      iss.startsWith('http://localhost:') &&
      iss.endsWith(tail) &&
      /^\d{1,5}$/.test(iss.slice('http://localhost:'.length, -tail.length)))
}
