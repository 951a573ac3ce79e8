import { Type, type TLiteral, type TOptional, type TProperties, type TString, type TUnion } from '@sinclair/typebox'

/**
 * The vocabulary of the settings tables. Each helper makes a description mandatory and, for numbers,
 * a documented minimum AND maximum: a bound the code cannot survive (an int4 column, a timer) is
 * refused at boot rather than met as a 500 at the first failed login.
 */
interface Doc {
  /** One or two sentences: what it does, what the unit is, what 0 or unset means. */
  description: string
}

interface Numeric extends Doc {
  default: number
  minimum: number
  maximum: number
}

export const int = (o: Numeric) => Type.Integer(o)

/** A fraction or another non-integer; the minimum is exclusive when `exclusiveMinimum` is given instead. */
export const num = (o: Omit<Numeric, 'minimum'> & ({ minimum: number } | { exclusiveMinimum: number })) =>
  Type.Number(o)

interface Text extends Doc {
  pattern?: string
  minLength?: number
  /** Never echoed in a configuration error (credentials, secrets). */
  secret?: true
}

/** A string with a default: always set once loaded. */
export const text = (o: Text & { default: string }) => Type.String(o)

/** A string that may be left unset; the description says what unset means. */
export const optionalText = (o: Text): TOptional<TString> => Type.Optional(Type.String(o))

/** One of a closed list of words. */
export function oneOf<const T extends string>(values: readonly T[], o: Doc & { default: T }): TUnion<TLiteral<T>[]> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    o,
  )
}

/** `true` or `false`, kept as text: the loader turns it into a boolean. */
export const flag = (o: Doc & { default: 'true' | 'false' }) => oneOf(['true', 'false'], o)

/** `true` or `false`, or unset when something else decides (the description says what). */
export const optionalFlag = (o: Doc) => Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], o))

/** A group of settings: one table in docs/configuration.md and one paragraph of .env.example. */
export interface Section<K extends TProperties> {
  title: string
  keys: K
}

export const section = <K extends TProperties>(s: Section<K>): Section<K> => s
