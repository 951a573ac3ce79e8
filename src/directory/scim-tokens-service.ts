import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { constantTimeEqualHex, hmacHex, randomToken } from '../platform/kit/crypto.js'
import { AppError, registerErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import * as repo from './store/scim-tokens.js'

export const SCIM_TOKEN_ERRORS = registerErrors({
  SCIM_TOKEN_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'DIR-4040',
    message: 'No such SCIM token.',
  },
})

/** How often a token's last use is written: reads do not write each time (DESIGN, "Reads never write"). */
const TOUCH_EVERY_MS = 10 * 60_000
/**
 * How long a process trusts a token it checked, without reading its row again: a provider sends
 * bursts of requests. A revocation is at once in the process that made it, and within this long in
 * the others (as API clients' status cache).
 */
const TRUST_MS = 30_000
const MAX_TRUSTED = 1_000
const PREFIX = 'mrscim_'

export interface ScimTokenInfo {
  tokenId: string
  name: string
  createdAt: string
  lastUsedAt?: string
}

const info = (r: repo.ListedToken): ScimTokenInfo => ({
  tokenId: r.token_id,
  name: r.name,
  createdAt: new Date(r.created_at).toISOString(),
  ...(r.last_used_at ? { lastUsedAt: new Date(r.last_used_at).toISOString() } : {}),
})

export type ScimTokensService = ReturnType<typeof createScimTokensService>

/**
 * Per-subscription bearer tokens for the SCIM endpoint. A token is `mrscim_<id>.<secret>`: the id
 * finds its row, the 256-bit secret is checked against its HMAC in constant time (as API client
 * secrets are: a slow hash on a high-entropy secret only invites CPU exhaustion).
 */
export function createScimTokensService(deps: { db: Db; clock: Clock; ids: IdGenerator; key: Buffer }) {
  const { db, clock, ids, key } = deps
  // tokenId → the secret's HMAC, its subscription, and until when it is trusted.
  const trusted = new Map<string, { hash: string; subId: string; until: number }>()
  return {
    /** A new token: the answer is the only time it is shown. */
    async createToken(subId: string, name: string): Promise<ScimTokenInfo & { token: string }> {
      const tokenId = ids('sct_')
      const secret = randomToken(32)
      const at = clock.now()
      await repo.insertToken(db, {
        token_id: tokenId,
        sub_id: subId,
        name: name.trim(),
        secret_hash: hmacHex(key, secret),
        created_at: at,
        last_used_at: null,
        revoked_at: null,
      })
      return { tokenId, name: name.trim(), createdAt: at.toISOString(), token: `${PREFIX}${tokenId}.${secret}` }
    },

    async listTokens(subId: string): Promise<ScimTokenInfo[]> {
      return (await repo.listTokens(db, subId)).map(info)
    },

    async revokeToken(subId: string, tokenId: string): Promise<void> {
      trusted.delete(tokenId)
      if (!(await repo.revokeToken(db, subId, tokenId, clock.now())))
        throw new AppError(SCIM_TOKEN_ERRORS.SCIM_TOKEN_NOT_FOUND, { detail: { tokenId } })
    },

    /** The subscription a presented token belongs to; null for anything that is not a live token. */
    async verify(presented: string): Promise<string | null> {
      if (!presented.startsWith(PREFIX)) return null
      const dot = presented.indexOf('.', PREFIX.length)
      if (dot < 0) return null
      const tokenId = presented.slice(PREFIX.length, dot)
      const hash = hmacHex(key, presented.slice(dot + 1))
      const now = clock.now()
      const known = trusted.get(tokenId)
      if (known && known.until > now.getTime()) return constantTimeEqualHex(known.hash, hash) ? known.subId : null
      const row = tokenId ? await repo.findLiveToken(db, tokenId) : undefined
      if (!row || !constantTimeEqualHex(row.secret_hash, hash)) return null
      if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() > TOUCH_EVERY_MS)
        await repo.touchToken(db, tokenId, now)
      if (trusted.size >= MAX_TRUSTED) trusted.clear()
      trusted.set(tokenId, { hash: row.secret_hash, subId: row.sub_id, until: now.getTime() + TRUST_MS })
      return row.sub_id
    },
  }
}
