import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses } from '../../platform/http/schemas.js'
import {
  ResetPasswordResponseSchema,
  ResetPasswordSchema,
  CreatedUserSchema,
  CreateUserSchema,
  UpdateUserSchema,
  UserDetailSchema,
  UserIdParams,
} from './user-schemas.js'
import type { UsersService } from '../users-service.js'

const tags = ['users']
const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { sessionCookie: [] }]

/**
 * Console users of the caller's subscription (issue 18.2). Admin only (users/access.ts): an API
 * client counts as an admin of its subscription, a clerk gets 403.
 */
export const usersRoutes: FastifyPluginAsyncTypebox<{ users: UsersService }> = async (app, { users }) => {
  app.get(
    '/api/v1/users',
    {
      schema: {
        tags,
        security,
        summary: 'List the console users of the subscription',
        response: { 200: Type.Object({ users: Type.Array(UserDetailSchema) }), ...errorResponses() },
      },
    },
    async (request) => ({ users: await users.listUsers(request.tenant.subId) }),
  )

  app.post(
    '/api/v1/users',
    {
      schema: {
        tags,
        security,
        summary: 'Create a console user',
        description:
          'Without `password` a one-time password is generated and returned in this answer only. Emails are unique across the installation (409 otherwise). `siteId` limits a clerk to that site and the sites below it.',
        body: CreateUserSchema,
        response: { 201: CreatedUserSchema, ...errorResponses(400, 409, 415) },
      },
    },
    async (request, reply) => reply.code(201).send(await users.createUser(request.tenant.subId, request.body)),
  )

  app.patch(
    '/api/v1/users/:userId',
    {
      schema: {
        tags,
        security,
        summary: 'Change, disable or re-enable a console user',
        description: '`disabled: true` ends every session of the user at once and refuses their sign-in.',
        params: UserIdParams,
        body: UpdateUserSchema,
        response: { 200: UserDetailSchema, ...errorResponses(400, 404, 415) },
      },
    },
    async (request) => users.updateUser(request.tenant.subId, request.params.userId, request.body),
  )

  app.post(
    '/api/v1/users/:userId/password',
    {
      schema: {
        tags,
        security,
        summary: 'Set a new password for a console user',
        description:
          'Without `password` a one-time password is generated and returned in this answer only. Every session of the user ends.',
        params: UserIdParams,
        body: ResetPasswordSchema,
        response: { 200: ResetPasswordResponseSchema, ...errorResponses(400, 404, 415) },
      },
      // The body is optional: none means "generate one".
      preValidation: (request, _reply, done) => {
        request.body ??= {}
        done()
      },
    },
    async (request) => users.resetPassword(request.tenant.subId, request.params.userId, request.body.password),
  )
}
