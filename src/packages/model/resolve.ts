import { ValidationErrors } from '../../platform/kit/errors.js'
import type { SiteInfo } from '../../sites/index.js'
import type { ContactLike, CustomFieldDefLike, PackageReaders } from './deps.js'

type Problem = { field: string; description: string }

export interface ReferenceInput {
  carrierId?: string | null
  sender?: string | null
  receiver?: string | null
  givenTo?: string | null
  siteId?: string | null
  siteField: string
  customFields?: Array<{ customFieldId: string; value: unknown }>
  existingCustomFields: Array<{ customFieldId: string; value: string }>
  /** Add checks required custom fields always; Update only when it touches them. */
  checkCustomFields: boolean
}

export interface Resolved {
  carrier?: { carrierId: string; name: string }
  contacts: Map<string, ContactLike>
  site?: SiteInfo
  customFields?: Array<{ customFieldId: string; value: string }>
  /** The definitions the values were checked against, to merge again under the row lock. */
  customFieldDefs: readonly CustomFieldDefLike[]
}

const CONTACT_RULES = {
  sender: { allowed: ['SENDER', 'ALL'], what: 'a SENDER or ALL contact' },
  receiver: { allowed: ['RECEIVER', 'ALL'], what: 'a RECEIVER or ALL contact' },
  givenTo: { allowed: ['SENDER', 'RECEIVER', 'ALL'], what: 'a contact' },
} as const

/**
 * Loads and checks every reference of an Add or Update at once (carrier, contacts and their
 * types, site, custom field values), reporting all problems in one 400 rather than the first.
 */
export async function resolveReferences(
  readers: PackageReaders,
  subId: string,
  input: ReferenceInput,
): Promise<Resolved> {
  const problems: Problem[] = []
  const contactIds = (['sender', 'receiver', 'givenTo'] as const).map((k) => input[k]).filter((x): x is string => !!x)
  const [carriers, contacts, sites, defs] = await Promise.all([
    input.carrierId ? readers.carriers.getVisible(subId, [input.carrierId]) : Promise.resolve(new Map<string, never>()),
    readers.contacts.getByIds(subId, contactIds),
    input.siteId ? readers.sites.getInfos(subId, [input.siteId]) : Promise.resolve(new Map<string, SiteInfo>()),
    input.checkCustomFields ? readers.customFields.listDefinitions(subId) : Promise.resolve([]),
  ])
  const out: Resolved = { contacts, customFieldDefs: defs }
  if (input.carrierId) {
    out.carrier = carriers.get(input.carrierId)
    if (!out.carrier)
      problems.push({ field: 'package.carrier.carrierId', description: `No carrier ${input.carrierId}.` })
  }
  for (const role of ['sender', 'receiver', 'givenTo'] as const) {
    const id = input[role]
    if (!id) continue
    const c = contacts.get(id)
    const field = `package.${role}.contactId`
    if (!c || c.deleted) problems.push({ field, description: `No contact ${id}.` })
    else if (!(CONTACT_RULES[role].allowed as readonly string[]).includes(c.contactType))
      problems.push({ field, description: `${role} must be ${CONTACT_RULES[role].what}; ${id} is ${c.contactType}.` })
    else if (c.status !== 'active') problems.push({ field, description: `Contact ${id} is inactive.` })
  }
  if (input.siteId) {
    out.site = sites.get(input.siteId)
    if (!out.site || out.site.deleted)
      problems.push({ field: input.siteField, description: `No inbound site ${input.siteId}.` })
    else if (out.site.status !== 'active')
      problems.push({ field: input.siteField, description: `Inbound site ${input.siteId} is inactive.` })
  }
  if (input.checkCustomFields) {
    try {
      out.customFields = readers.checkCustomFieldValues(
        defs,
        input.customFields,
        input.existingCustomFields,
        'package.customFields',
      )
    } catch (e) {
      if (e instanceof ValidationErrors) problems.push(...e.items)
      else throw e
    }
  }
  if (problems.length) throw new ValidationErrors(problems)
  return out
}
