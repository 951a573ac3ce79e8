import { Type, type Static } from '@sinclair/typebox'
import { accessSettings } from './access.js'
import { deploymentSettings } from './deployment.js'
import { imagesSettings } from './images.js'
import { limitsSettings } from './limits.js'
import { notificationsSettings } from './notifications.js'
import { reportsSettings } from './reports.js'
import { serverSettings } from './server.js'
import { webhooksSettings } from './webhooks.js'

/**
 * Every setting, one table per concern, in the order docs/configuration.md and .env.example list
 * them (both generated from these tables: `npm run config:docs`). To add a setting, see
 * docs/configuration.md "Adding a setting".
 */
export const SECTIONS = [
  deploymentSettings,
  serverSettings,
  accessSettings,
  imagesSettings,
  webhooksSettings,
  notificationsSettings,
  reportsSettings,
  limitsSettings,
] as const

export const EnvSchema = Type.Object({
  ...deploymentSettings.keys,
  ...serverSettings.keys,
  ...accessSettings.keys,
  ...imagesSettings.keys,
  ...webhooksSettings.keys,
  ...notificationsSettings.keys,
  ...reportsSettings.keys,
  ...limitsSettings.keys,
})

/** The environment once validated and defaulted: what each table's reader gets. */
export type Env = Static<typeof EnvSchema>
