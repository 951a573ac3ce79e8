import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import type { Config } from '../config.js'
import type { AppContext } from '../context.js'
import { openRuntime } from '../runtime.js'
import { AppError } from '../../platform/kit/errors.js'
import { CreateUserSchema, ResetPasswordSchema, type CreateUser } from '../../access/index.js'
import { parse, UsageError } from './args.js'

// The API's own checker (ajv with its formats) on the API's own schemas: one rule for both doors.
const ajv = addFormats.default(new Ajv({ allErrors: true, strict: false }))
const checkCreate = ajv.compile(CreateUserSchema)
const checkPassword = ajv.compile(ResetPasswordSchema)

const USAGE =
  'users create --subscription NAME --email E --role admin|clerk [--password P] | users list | users disable ID'

/** `mailroom users create|list|disable|enable`: console users (issue 18.2). */
export async function usersCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const command = parseUsersCommand(args)
  const ctx = await openRuntime(config)
  try {
    await runUsersCommand(ctx, command, (text) => process.stdout.write(`${text}\n`))
  } finally {
    await ctx.database.close()
  }
}

type UsersCommand =
  | { action: 'create'; subscription: string; input: CreateUser; json: boolean }
  | { action: 'list'; json: boolean }
  | { action: 'disable' | 'enable'; userId: string }
  | { action: 'password'; userId: string; password?: string; json: boolean }

/** The arguments, checked before anything is opened: the same schema as POST /api/v1/users. */
export function parseUsersCommand(args: string[]): UsersCommand {
  const [action, ...rest] = args
  const { values, positionals } = parse(rest, {
    subscription: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string' },
    site: { type: 'string' },
    json: { type: 'boolean', default: false },
  })
  switch (action) {
    case 'create': {
      if (!values.subscription) throw new UsageError('users create needs --subscription NAME')
      const input = {
        email: values.email,
        role: values.role,
        ...(values.password !== undefined ? { password: values.password } : {}),
        ...(values.name !== undefined ? { name: values.name } : {}),
        ...(values.site !== undefined ? { siteId: values.site } : {}),
      }
      const problems = checkCreate(input)
        ? []
        : (checkCreate.errors ?? []).map((e) =>
            e.keyword === 'required'
              ? `--${flagOf(`/${String(e.params.missingProperty)}`)}: required`
              : `--${flagOf(e.instancePath)}: ${e.message ?? 'invalid'}`,
          )
      if (problems.length > 0) throw new UsageError(`users create: ${[...new Set(problems)].join('; ')}`)
      return { action, subscription: values.subscription, input: input as CreateUser, json: values.json }
    }
    case 'list':
      return { action, json: values.json }
    case 'password': {
      if (positionals.length !== 1) throw new UsageError('users password needs one user id')
      const input = values.password === undefined ? {} : { password: values.password }
      if (!checkPassword(input))
        throw new UsageError(`users password: --password: ${checkPassword.errors?.[0]?.message ?? 'invalid'}`)
      return { action, userId: positionals[0]!, password: values.password, json: values.json }
    }
    case 'disable':
    case 'enable':
      if (positionals.length !== 1) throw new UsageError(`users ${action} needs one user id`)
      return { action, userId: positionals[0]! }
    default:
      throw new UsageError(USAGE)
  }
}

const flagOf = (path: string) => ({ '/siteId': 'site' })[path] ?? path.slice(1)

/** Runs a parsed command against an open context; `out` takes each line (tests pass their own). */
export async function runUsersCommand(ctx: AppContext, command: UsersCommand, out: (text: string) => void) {
  switch (command.action) {
    case 'create': {
      const created = await asUsage(ctx.users.createUserIn(command.subscription, command.input))
      if (command.json) return out(JSON.stringify(created))
      const { user, password } = created
      out(`userId:   ${user.userId}\nemail:    ${user.email}\nrole:     ${user.role}\nsubId:    ${user.subscription}`)
      if (password) out(`password: ${password}\n(a one-time password: shown only now; give it to the user)`)
      return
    }
    case 'list': {
      const rows = await ctx.users.listAllUsers()
      if (command.json)
        return out(
          JSON.stringify(
            rows.map((r) => ({
              userId: r.user_id,
              email: r.email,
              name: r.name,
              role: r.role,
              subId: r.sub_id,
              subscription: r.subscription,
              siteId: r.site_id,
              status: r.status,
              createdAt: r.created_at,
            })),
          ),
        )
      for (const r of rows)
        out(`${r.user_id}\t${r.status}\t${r.role}\t${r.email}\t${r.subscription}\t${r.site_id ?? ''}`)
      return
    }
    case 'password': {
      const reset = await ctx.users.resetPasswordOf(command.userId, command.password)
      if (!reset) throw new UsageError(`no user ${command.userId}`)
      if (command.json) return out(JSON.stringify(reset))
      out(`${command.userId}: new password set; signed out everywhere`)
      if (reset.password) out(`password: ${reset.password}\n(a one-time password: shown only now; give it to the user)`)
      return
    }
    case 'disable':
    case 'enable': {
      const found = await ctx.users.setDisabled(command.userId, command.action === 'disable')
      if (!found) throw new UsageError(`no user ${command.userId}`)
      return out(
        command.action === 'disable'
          ? `${command.userId} disabled: signed out everywhere, sign-in refused`
          : `${command.userId} enabled`,
      )
    }
    default:
      return command satisfies never
  }
}

/** A refusal of the service (taken email, unknown site) is the operator's to fix: a usage error. */
async function asUsage<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (e) {
    if (e instanceof AppError && e.status < 500)
      throw new UsageError(e.options.field ? `--${flagOf(`/${e.options.field}`)}: ${e.message}` : e.message)
    throw e
  }
}
