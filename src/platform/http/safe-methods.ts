/**
 * The methods that change nothing (RFC 9110 §9.2.1). Everything else is a write: it needs the
 * session's CSRF token under cookie authentication and a classification for clerks (users/access.ts).
 * Listed this way round so that a method nobody thought of counts as a write (fails closed).
 */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS'])

export const isSafeMethod = (method: string) => SAFE_METHODS.has(method.toUpperCase())
