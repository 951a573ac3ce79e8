/**
 * A query over the directory's contacts, as the SCIM filter (RFC 7644 §3.4.2.2) says it once its
 * attribute names are mapped: the contacts store turns it into SQL. Text comparisons ignore case
 * where the attribute does (userName, email, name: caseExact false in RFC 7643); ids compare exactly.
 */
export const DIRECTORY_FIELDS = ['userName', 'externalId', 'contactId', 'email', 'name', 'active', 'member'] as const
export type DirectoryField = (typeof DIRECTORY_FIELDS)[number]
export const TEXT_OPS = ['eq', 'ne', 'co', 'sw', 'ew'] as const
export type TextOp = (typeof TEXT_OPS)[number]

export type DirectoryCondition =
  | { op: TextOp; field: Exclude<DirectoryField, 'active' | 'member'>; value: string }
  | { op: 'eq' | 'ne'; field: 'active'; value: boolean }
  /** `members[value eq "id"]`: the contact has this delegate (a group's member). */
  | { op: 'eq'; field: 'member'; value: string }
  | { op: 'pr'; field: Exclude<DirectoryField, 'active' | 'member' | 'contactId'> }
  | { op: 'and' | 'or'; of: DirectoryCondition[] }
  | { op: 'not'; of: DirectoryCondition }

/** Which attributes ignore case when compared. */
export const CASE_INSENSITIVE: ReadonlySet<DirectoryField> = new Set(['userName', 'email', 'name'])
