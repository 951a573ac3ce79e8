import type { SiteInfo } from '../../sites/index.js'

/**
 * What packages need from the companion domains, as narrow structural interfaces: the composition
 * root passes the real services, and this domain never reaches into their repos.
 */
export interface ContactLike {
  contactId: string
  contactType: 'SENDER' | 'RECEIVER' | 'ALL'
  name: string
  company?: string | null
  email?: string | null
  phone?: string | null
  personalId?: string | null
  locationSiteId?: string | null
  mailStopSiteId?: string | null
  status: 'active' | 'inactive'
  deleted: boolean
}

export interface CustomFieldDefLike {
  customFieldId: string
  name: string
  status: 'ACTIVE' | 'INACTIVE'
  dataType: string
  required: boolean
  options?: string[]
}

export interface PackageReaders {
  sites: {
    getInfos(subId: string, ids: string[]): Promise<Map<string, SiteInfo>>
    primarySiteId(subId: string): Promise<string | undefined>
  }
  contacts: { getByIds(subId: string, ids: string[]): Promise<Map<string, ContactLike>> }
  carriers: { getVisible(subId: string, ids: string[]): Promise<Map<string, { carrierId: string; name: string }>> }
  customFields: { listDefinitions(subId: string): Promise<readonly CustomFieldDefLike[]> }
  locations: { getByIds(subId: string, ids: string[]): Promise<Map<string, { address?: { postalCode?: string } }>> }
  /** Merges and validates custom field values (the customfields domain's rules). */
  checkCustomFieldValues(
    defs: readonly CustomFieldDefLike[],
    input: Array<{ customFieldId: string; value: unknown }> | undefined,
    existing: Array<{ customFieldId: string; value: string }>,
    fieldPrefix: string,
  ): Array<{ customFieldId: string; value: string }>
}
