import { describe, expect, it } from 'vitest'
import type { PackageRecord } from '../../src/packages/api/schemas.js'
import { heldPackagesFrom } from '../../src/scan/model/held-packages.js'
import { createScanService } from '../../src/scan/service.js'
import { batchPerSubscription } from '../../src/platform/kit/batch.js'

const record = (subId: string, trackingNumber: string): PackageRecord => ({
  packageId: `pkg_${subId}_${trackingNumber}`,
  trackingNumber,
  subId,
  assetType: 'PACKAGE',
  currentStatus: 'RECEIVED',
  damaged: false,
  archived: false,
  sender: { contactId: `con_s_${subId}`, name: `Sender of ${subId}`, email: 'secret@example.com' },
  receiver: { contactId: `con_r_${subId}`, name: `Receiver of ${subId}`, phone: '555' },
  customFields: [],
  flags: [],
  userName: 'clerk',
  insertTimestamp: '2026-01-01T00:00:00.000Z',
  updateTimestamp: '2026-01-01T00:00:00.000Z',
  version: 1,
})

describe('decode lookups through the gathered record read', () => {
  it('concurrent scans of one turn cost one lookup per subscription, each answered with its own package', async () => {
    const calls: Array<[string, string[]]> = []
    const held: Record<string, string[]> = {
      a: ['1Z999AA10123456784', '1Z999AA10000000014'],
      b: ['1Z999AA10123456784'],
    }
    const read = batchPerSubscription<PackageRecord>(async (subId, numbers) => {
      calls.push([subId, [...numbers].sort()])
      return new Map(numbers.filter((n) => held[subId]?.includes(n)).map((n) => [n, record(subId, n)]))
    })
    const scan = createScanService({
      findPackages: heldPackagesFrom((subId, n) => read(subId, n)),
      findContacts: async () => [],
      findCompanyContacts: async () => [],
      siteRefs: async () => new Map(),
    })
    const scans: Array<[string, string]> = [
      ['a', '1Z999AA10123456784'],
      ['b', '1Z999AA10123456784'],
      ['a', '1Z999AA10000000014'],
      ['c', '1Z999AA10123456784'],
    ]
    const answers = await Promise.all(scans.map(([sub, n]) => scan.decode(sub, n)))

    expect(calls.map(([sub]) => sub).sort()).toEqual(['a', 'b', 'c'])
    expect(calls.find(([sub]) => sub === 'a')![1]).toEqual(['1Z999AA10000000014', '1Z999AA10123456784'])
    expect(answers.map((r) => r.package.packageId)).toEqual([
      'pkg_a_1Z999AA10123456784',
      'pkg_b_1Z999AA10123456784',
      'pkg_a_1Z999AA10000000014',
      undefined,
    ])
    expect(answers[1]!.package.sender).toEqual({ contactId: 'con_s_b', name: 'Sender of b' })
    expect(answers[1]!.package.receiver).toEqual({ contactId: 'con_r_b', name: 'Receiver of b', phone: '555' })
    expect(answers[3]!.package.sender).toBeUndefined()
  })
})
