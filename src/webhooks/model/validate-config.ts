import { ValidationErrors } from '../../platform/kit/errors.js'
import type { ConfigBody } from '../api/configs-schemas.js'
import { SECRET_FIELD } from '../delivery/credentials.js'
import { destinationProblem, type DestinationRules } from '../delivery/destination.js'
import { WEBHOOK_ERRORS } from './errors.js'
import type { AuthPublic, AuthType, ConfigStatus } from '../store/tables.js'

export interface AuthInput {
  type: AuthType
  public: AuthPublic
  /** The credential as sent; a masked value (`****abcd`) means "keep the stored one". */
  secret?: string
}

export interface ConfigInput {
  name: string
  events: string[]
  url: string
  timeoutSeconds: number
  status: ConfigStatus
  auth: AuthInput
}

// Headers the sender sets itself or that would corrupt the request: a custom auth header may not
// replace them.
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'cookie',
])

type Problem = { field: string; description: string; code?: string }

/**
 * The rules of a configuration body beyond its schema (which already checked lengths, the variant
 * and its event names). Every problem is reported at once, each naming its field.
 */
export async function validateConfigBody(body: ConfigBody, rules: DestinationRules): Promise<ConfigInput> {
  const problems: Problem[] = []
  const url = body.url.trim()
  const urlProblem = await destinationProblem(url, rules)
  if (urlProblem)
    problems.push({
      field: 'url',
      description: `url ${urlProblem.message}`,
      code: urlProblem.kind === 'refused' ? WEBHOOK_ERRORS.WEBHOOK_URL_REFUSED : undefined,
    })

  const a = body.authParams
  const type = a.authType as AuthType
  const need = (field: keyof typeof a) => {
    if (a[field] === undefined || a[field] === '')
      problems.push({
        field: `authParams.${field}`,
        description: `authParams.${field} is required for authType ${type}`,
        code: WEBHOOK_ERRORS.WEBHOOK_AUTH_INVALID,
      })
  }
  const pub: AuthPublic = {}
  if (type === 'custom') {
    need('headerName')
    const name = a.headerName?.toLowerCase()
    if (name && (RESERVED_HEADERS.has(name) || name.startsWith('webhook-') || name.startsWith('proxy-'))) {
      problems.push({
        field: 'authParams.headerName',
        description: `authParams.headerName ${a.headerName} is set by the sender itself; choose another header`,
        code: WEBHOOK_ERRORS.WEBHOOK_AUTH_INVALID,
      })
    }
    pub.headerName = a.headerName
  } else if (type === 'basic') {
    need('username')
    pub.username = a.username
  } else if (type === 'oauth2') {
    need('tokenUrl')
    need('clientId')
    if (a.tokenUrl) {
      const p = await destinationProblem(a.tokenUrl.trim(), rules)
      if (p)
        problems.push({
          field: 'authParams.tokenUrl',
          description: `authParams.tokenUrl ${p.message}`,
          code: p.kind === 'refused' ? WEBHOOK_ERRORS.WEBHOOK_URL_REFUSED : WEBHOOK_ERRORS.WEBHOOK_AUTH_INVALID,
        })
    }
    pub.tokenUrl = a.tokenUrl?.trim()
    pub.clientId = a.clientId
    if (a.scope) pub.scope = a.scope
  }
  const secretField = SECRET_FIELD[type]
  if (secretField) need(secretField)
  if (problems.length > 0) throw new ValidationErrors(problems)

  return {
    name: body.name.trim(),
    events: [...new Set(body.events)],
    url,
    timeoutSeconds: body.timeOut,
    status: body.status as ConfigStatus,
    auth: { type, public: pub, ...(secretField ? { secret: a[secretField] } : {}) },
  }
}
