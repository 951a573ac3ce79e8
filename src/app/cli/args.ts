import { parseArgs, type ParseArgsConfig } from 'node:util'

/** A usage error: printed with the command's help, exit code 2. */
export class UsageError extends Error {}

export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true })
  } catch (e) {
    throw new UsageError((e as Error).message)
  }
}

/** A command that cannot do what was asked, said in one line (`mailroom: …`) with its exit code (1 unless given). */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
    this.name = 'CommandError'
  }
}
