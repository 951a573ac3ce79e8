import { describe, expect, it } from 'vitest'
import { gs1CheckDigit } from '../../src/decode/index.js'
import { createScanService, type ScanDeps } from '../../src/scan/service.js'

const GS = '\u001d'
const RS = '\u001e'
const EOT = '\u0004'
const UPS_MAXICODE = `[)>${RS}01${GS}96841706672${GS}840${GS}001${GS}1Z12345675${GS}UPSN${GS}12345E${GS}089${RS}${EOT}`
const MAXICODE_FITS = ['1Z12345E0112345675', '1Z12345E4412345675', '1Z12345EA012345675']

/** Fake lookups: packages by tracking number, contacts by exact name; every call recorded. */
function fakeDeps(
  packages: Record<string, string>,
  contacts: Array<{ contactId: string; name: string; company?: string }> = [],
) {
  const lookedUp: string[] = []
  const lookups: string[][] = []
  const contactQueries: Array<[string, string | undefined]> = []
  const deps: ScanDeps = {
    async findPackages(_subId, trackingNumbers) {
      lookups.push([...trackingNumbers])
      lookedUp.push(...trackingNumbers)
      return new Map(
        trackingNumbers
          .filter((n) => packages[n] !== undefined)
          .map((n) => [n, { packageId: packages[n]!, currentStatus: 'RECEIVED', currentLocation: undefined }]),
      )
    },
    async findContacts(_subId, name, company) {
      contactQueries.push([name, company])
      return contacts.filter((c) => c.name.toLowerCase() === name.toLowerCase())
    },
    async findCompanyContacts(_subId, company) {
      contactQueries.push([company, undefined])
      const named = contacts.filter((c) => c.name.toLowerCase() === company.toLowerCase())
      return named.length > 0 ? named : contacts.filter((c) => c.company?.toLowerCase() === company.toLowerCase())
    },
    async siteRefs() {
      return new Map()
    },
  }
  return { deps, lookedUp, lookups, contactQueries }
}

describe('scan service: the carrier it states', () => {
  it.each([
    ['3318810025', 'DHL_EXPRESS'],
    ['986578788855', 'FEDEX'],
    ['041441760228964', 'FEDEX'],
    ['0073938000549297', 'CANADA_POST'],
    ['71123456789123456787', 'USPS'],
  ])('a bare shape with a valid check (%s) is a candidate, not package.carrier', async (scan, carrierId) => {
    const out = await createScanService(fakeDeps({}).deps).decode('sub', scan)
    expect(out.package.carrier).toBeUndefined()
    expect(out.package.service).toBeUndefined()
    expect(out.decodedCarriers[0]).toMatchObject({ carrierId, checkDigitValid: true })
  })

  it('a strong reading is package.carrier, with its service', async () => {
    const out = await createScanService(fakeDeps({}).deps).decode('sub', '1Z999AA10123456784')
    expect(out.package.carrier).toEqual({ carrierId: 'UPS', name: 'UPS' })
    expect(out.package.service).toEqual({ code: '01', name: 'Next Day Air' })
  })

  it('an SSCC: trackingNumber is the SSCC, FedEx only a candidate', async () => {
    const out = await createScanService(fakeDeps({}).deps).decode('sub', '00340434161094042557')
    expect(out.package.trackingNumber).toBe('340434161094042557')
    expect(out.package.carrier).toBeUndefined()
    // The bare 20 digits are a USPS 20-digit number as well, listed after FedEx.
    expect(out.decodedCarriers).toEqual([
      expect.objectContaining({ carrierId: 'FEDEX', trackingNumber: '00340434161094042557' }),
      expect.objectContaining({ carrierId: 'USPS', trackingNumber: '00340434161094042557' }),
    ])
  })
})

describe('scan service: the package already held', () => {
  it("asks once for every number, and the reported number wins over the candidates' numbers", async () => {
    const f = fakeDeps({ '340434161094042557': 'pkg_1', '00340434161094042557': 'pkg_2' })
    const out = await createScanService(f.deps).decode('sub', '00340434161094042557')
    expect(out.package.packageId).toBe('pkg_1')
    expect(f.lookups).toEqual([['340434161094042557', '00340434161094042557']])
  })

  it('then under every candidate\'s number: an SSCC kept as "00" + SSCC is found', async () => {
    const f = fakeDeps({ '00340434161094042557': 'pkg_2' })
    const out = await createScanService(f.deps).decode('sub', '00340434161094042557', { expectedPackage: true })
    expect(out.package).toMatchObject({ packageId: 'pkg_2', currentStatus: 'RECEIVED', expectedPackageFound: true })
    expect(f.lookedUp).toEqual(['340434161094042557', '00340434161094042557'])
  })

  it('one number per lookup: candidates sharing the reported number are not asked twice', async () => {
    const f = fakeDeps({})
    await createScanService(f.deps).decode('sub', '9261292700768711948021')
    expect(f.lookedUp).toEqual(['9261292700768711948021'])
  })

  it.each(MAXICODE_FITS)('MaxiCode short field: the package on file as %s is found', async (held) => {
    const f = fakeDeps({ [held]: 'pkg_held' })
    const out = await createScanService(f.deps).decode('sub', UPS_MAXICODE)
    expect(out.package.trackingNumber).toBe('1Z12345675')
    expect(out.package.packageId).toBe('pkg_held')
    expect(f.lookedUp.sort()).toEqual(['1Z12345675', ...MAXICODE_FITS].sort())
  })

  it('two packages behind two fitting numbers: no match is claimed', async () => {
    const f = fakeDeps({ [MAXICODE_FITS[0]!]: 'pkg_a', [MAXICODE_FITS[1]!]: 'pkg_b' })
    const out = await createScanService(f.deps).decode('sub', UPS_MAXICODE, { expectedPackage: true })
    expect(out.package.packageId).toBeUndefined()
    expect(out.package.expectedPackageFound).toBe(false)
  })

  it('nothing to look up: no lookup, expectedPackageFound false', async () => {
    const f = fakeDeps({})
    const out = await createScanService(f.deps).decode('sub', ']C1420123456789', { expectedPackage: true })
    expect(out.package.trackingNumber).toBeNull()
    expect(out.package.expectedPackageFound).toBe(false)
    expect(f.lookedUp).toEqual([])
  })
})

describe('scan service: the receiver contact', () => {
  const SSCC = `00614141123456789${gs1CheckDigit('00614141123456789')}`
  const shipTo = (...elements: string[]) => `]d2${GS}00${SSCC}${elements.join(GS)}`

  it("a person's name is matched, narrowed by company", async () => {
    const f = fakeDeps({}, [{ contactId: 'c_jane', name: 'Jane Doe' }])
    const out = await createScanService(f.deps).decode('sub', shipTo('4301JANE DOE', '4300ACME'))
    expect(out.package.receiver?.contactId).toBe('c_jane')
    expect(f.contactQueries).toEqual([['JANE DOE', 'ACME']])
  })

  it('a company-only ship-to is matched on the company', async () => {
    const f = fakeDeps({}, [{ contactId: 'c_acme', name: 'Acme Corp' }])
    const out = await createScanService(f.deps).decode('sub', shipTo('4300ACME CORP', '4305SPRINGFIELD'))
    expect(out.package.receiver).toMatchObject({ company: 'ACME CORP', contactId: 'c_acme' })
    expect(f.contactQueries).toEqual([['ACME CORP', undefined]])
  })

  it('several contacts of that company name: candidates, no contactId', async () => {
    const f = fakeDeps({}, [
      { contactId: 'c_1', name: 'Acme Corp' },
      { contactId: 'c_2', name: 'ACME CORP' },
    ])
    const out = await createScanService(f.deps).decode('sub', shipTo('4300ACME CORP'))
    expect(out.package.receiver?.contactId).toBeUndefined()
    expect(out.package.receiverCandidates?.map((c) => c.contactId)).toEqual(['c_1', 'c_2'])
  })

  it('a ship-to with neither name nor company asks nothing', async () => {
    const f = fakeDeps({})
    await createScanService(f.deps).decode('sub', shipTo('4302123 MAIN ST', '4305SPRINGFIELD'))
    expect(f.contactQueries).toEqual([])
  })
})
