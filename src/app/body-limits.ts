import type { BodyLimitOptions } from '../platform/http/body-limits.js'

const KiB = 1024

/**
 * What each JSON route may receive (issue 26), from its schema's largest legitimate body with
 * margin. Worst cases count every character escaped as `\uXXXX` (6 bytes), as a client may send
 * it. Image uploads and label scans set their own limits in their routes (IMAGE_MAX_BYTES); the
 * token endpoint its own 16 KiB.
 * - Default 160 KiB: the largest other schema is a LIST custom field's 200 options of 100
 *   characters (120 KB escaped); bulk bodies of 200 ids are ~15 KB; a webhook configuration ~10 KB.
 * - A package add or change, 768 KiB: 100 custom values of 1,000 characters (600 KB escaped).
 * - The notification settings, BODY_LIMIT_BYTES (1 MiB by default): templates of 4 kinds per
 *   language, each up to 500 + 20,000 + 50,000 characters.
 */
export function bodyLimits(settingsBytes: number): BodyLimitOptions {
  return {
    defaultBytes: 160 * KiB,
    routes: {
      'POST /api/v1/packages': 768 * KiB,
      'PUT /api/v1/packages/:packageId': 768 * KiB,
      'PUT /api/v1/notifications/settings': settingsBytes,
      // A SCIM group with thousands of members ({"value": id} each, ~60 bytes); a roster file (issue 28).
      'POST /scim/v2/Groups': 1024 * KiB,
      'PUT /scim/v2/Groups/:id': 1024 * KiB,
      'PATCH /scim/v2/Groups/:id': 1024 * KiB,
      'POST /api/v1/contacts/import/xlsx': 2048 * KiB,
    },
    // A body over 64 KiB is rare (a package with long custom values, templates): one at a time per
    // subscription, 2 MiB of them a second, is room for any client (three of the largest package
    // adds a second), and bounds what one subscription's reads and parses cost the others: a MiB
    // takes the event loop a few milliseconds, so under 1% of it (bench:neighbour, bodies).
    largeBytes: 64 * KiB,
    largePerSubscription: 1,
    largeBytesPerSecond: 2048 * KiB,
    largeBurstBytes: Math.max(2048 * KiB, settingsBytes),
  }
}
