import { describe, expect, it } from 'vitest'
import { UsageError } from '../../src/app/cli/args.js'
import { parseUsersCommand, runUsersCommand } from '../../src/app/cli/users.js'
import { signIn } from '../support/console-session.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

/** The command as `mailroom users …` runs it, against the test app's database; its output lines. */
async function users(...args: string[]): Promise<string[]> {
  const lines: string[] = []
  await runUsersCommand(t.ctx, parseUsersCommand(args), (line) => lines.push(line))
  return lines
}

describe('mailroom users', () => {
  it('creates a user with a one-time password, which signs in; lists it; disables it', async () => {
    const out = await users('create', '--subscription', 'cli-acme', '--email', 'cli@example.com', '--role', 'clerk')
    const text = out.join('\n')
    const userId = /userId:\s+(\S+)/.exec(text)![1]!
    const password = /password: (\S+)/.exec(text)![1]!
    expect(text).toContain('one-time password')
    const s = await signIn(t, 'cli@example.com', password)
    expect(s.user).toMatchObject({ userId, role: 'clerk' })

    const listed = JSON.parse((await users('list', '--json'))[0]!)
    expect(listed).toEqual([
      expect.objectContaining({
        userId,
        email: 'cli@example.com',
        role: 'clerk',
        subscription: 'cli-acme',
        status: 'active',
      }),
    ])
    expect(JSON.stringify(listed)).not.toMatch(/argon|password/i)
    const plain = await users('list')
    expect(plain[0]).toMatch(new RegExp(`^${userId}\\tactive\\tclerk\\tcli@example.com\\tcli-acme`))

    expect((await users('disable', userId))[0]).toContain('disabled')
    expect((await t.inject({ method: 'GET', url: '/console/api/session', cookies: s.cookies })).statusCode).toBe(401)
    const refused = await t.inject({
      method: 'POST',
      url: '/console/api/session',
      payload: { email: 'cli@example.com', password },
    })
    expect(refused.statusCode).toBe(401)
    expect(JSON.parse((await users('list', '--json'))[0]!)[0].status).toBe('disabled')
    await users('enable', userId)
    await signIn(t, 'cli@example.com', password)
  })

  it('takes --password and prints none; --json answers the API’s body', async () => {
    const out = await users(
      'create',
      '--subscription',
      'cli-acme',
      '--email',
      'admin-cli@example.com',
      '--role',
      'admin',
      '--password',
      'chosen by the admin',
      '--json',
    )
    const created = JSON.parse(out[0]!)
    expect(created.password).toBeUndefined()
    expect(created.user).toMatchObject({ email: 'admin-cli@example.com', role: 'admin' })
    await signIn(t, 'admin-cli@example.com', 'chosen by the admin')
  })

  it('refuses bad arguments with a usage error naming the flag, before touching anything', async () => {
    const bad =
      (...args: string[]) =>
      () =>
        parseUsersCommand(args)
    expect(bad('create', '--email', 'a@example.com', '--role', 'clerk')).toThrow(/--subscription/)
    expect(bad('create', '--subscription', 's', '--email', 'nope', '--role', 'clerk')).toThrow(/--email/)
    expect(bad('create', '--subscription', 's', '--email', 'a@example.com', '--role', 'boss')).toThrow(/--role/)
    expect(bad('create', '--subscription', 's', '--role', 'clerk')).toThrow(/--email: required/)
    expect(
      bad('create', '--subscription', 's', '--email', 'a@example.com', '--role', 'clerk', '--password', 'short'),
    ).toThrow(/--password/)
    expect(bad('disable')).toThrow(UsageError)
    expect(bad('rename')).toThrow(/users create/)
    expect(bad('list', '--colour')).toThrow(UsageError)
  })

  it('sets a new password: generated and printed once, or given; the old one and its sessions end', async () => {
    const out = await users('create', '--subscription', 'cli-p', '--email', 'pw@example.com', '--role', 'clerk')
    const userId = /userId:\s+(\S+)/.exec(out.join('\n'))![1]!
    const old = /password: (\S+)/.exec(out.join('\n'))![1]!
    const s = await signIn(t, 'pw@example.com', old)
    const reset = (await users('password', userId)).join('\n')
    const fresh = /password: (\S+)/.exec(reset)![1]!
    expect(fresh).not.toBe(old)
    expect((await t.inject({ method: 'GET', url: '/console/api/session', cookies: s.cookies })).statusCode).toBe(401)
    await signIn(t, 'pw@example.com', fresh)
    expect(JSON.parse((await users('password', userId, '--password', 'given at the desk', '--json'))[0]!)).toEqual({})
    await signIn(t, 'pw@example.com', 'given at the desk')
    expect(() => parseUsersCommand(['password', userId, '--password', 'short'])).toThrow(/--password/)
    await expect(users('password', 'usr_nobody')).rejects.toThrow(/no user usr_nobody/)
  })

  it('reports a taken email, an unknown site and an unknown user as usage errors', async () => {
    await users('create', '--subscription', 'cli-b', '--email', 'taken@example.com', '--role', 'clerk')
    await expect(
      users('create', '--subscription', 'cli-c', '--email', 'TAKEN@example.com', '--role', 'clerk'),
    ).rejects.toThrow(/--email: A user already has this email/)
    await expect(
      users('create', '--subscription', 'cli-b', '--email', 'site@example.com', '--role', 'clerk', '--site', 'nowhere'),
    ).rejects.toThrow(/--site: siteId nowhere is not a site/)
    await expect(users('disable', 'usr_nobody')).rejects.toThrow(/no user usr_nobody/)
  })
})
