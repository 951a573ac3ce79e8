import { Type } from '@sinclair/typebox'
import type { FastifyPluginAsync } from 'fastify'
import { API_SCOPE } from '../tokens-service.js'

export interface MetadataRoutesOptions {
  issuer: string
  /** Absolute URL of the access-token mount (`{auth_url}`). */
  authUrl: string
  /** Mount prefix of the access-token interface, as this server sees it (`/auth`). */
  authPrefix: string
  /** The issuer's path as this server sees it (`/auth/us`): RFC 8414 §3 puts the metadata below it. */
  issuerPath: string
}

const MetadataSchema = Type.Object(
  {
    issuer: Type.String(),
    token_endpoint: Type.String(),
    jwks_uri: Type.String(),
    grant_types_supported: Type.Array(Type.Literal('client_credentials')),
    token_endpoint_auth_methods_supported: Type.Array(
      Type.Union([Type.Literal('client_secret_basic'), Type.Literal('client_secret_post')]),
    ),
    scopes_supported: Type.Array(Type.Literal(API_SCOPE)),
    response_types_supported: Type.Array(Type.String(), { description: 'Empty: there is no authorization endpoint.' }),
  },
  { title: 'AuthorizationServerMetadata' },
)

/**
 * RFC 8414 authorization server metadata. It lists only what the server does: client credentials,
 * client_secret_basic and client_secret_post, the token endpoint and the JWKS. Served under the
 * auth mount and at the issuer-derived address (`/.well-known/oauth-authorization-server` + issuer
 * path), where standard clients (openid-client's discovery) look for it. Registered at the root.
 */
export const metadataRoutes: FastifyPluginAsync<MetadataRoutesOptions> = async (app, opts) => {
  const metadata = {
    issuer: opts.issuer,
    token_endpoint: `${opts.authUrl}/api/v1/token`,
    jwks_uri: `${opts.authUrl}/.well-known/jwks.json`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: [API_SCOPE],
    response_types_supported: [],
  }
  const paths = [
    `${opts.authPrefix}/.well-known/oauth-authorization-server`,
    `/.well-known/oauth-authorization-server${opts.issuerPath}`,
  ]
  for (const url of paths) {
    app.get(
      url,
      {
        schema: {
          tags: ['access token'],
          summary: 'Authorization server metadata (RFC 8414)',
          response: { 200: MetadataSchema },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'public, max-age=300')
        return metadata
      },
    )
  }
}
