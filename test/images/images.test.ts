import { beforeAll, describe, expect, it } from 'vitest'
import { itRefusesBadTokens } from '../support/auth-matrix.js'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api, GIF_1PX, JPEG_BYTES, PNG_1PX, WEBP_BYTES } from '../support/factories.js'

const t = useTestApp({ IMAGE_MAX_BYTES: '4096' })
const me = useClient(t)
let a: ReturnType<typeof api>
beforeAll(async () => {
  a = api(t, me)
})

const upload = (base64: unknown) => a.call('POST', '/api/v1/packages/images', { base64 })
const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`

describe('images', () => {
  itRefusesBadTokens(
    () => t,
    [
      { method: 'POST', url: '/api/v1/packages/images', payload: { base64: PNG_1PX } },
      { method: 'GET', url: '/api/v1/packages/images/img_x' },
      { method: 'GET', url: '/temp/images/img_x' },
    ],
  )

  it('stores png, jpeg, gif and webp whose bytes match the declared type, and serves them to the owner', async () => {
    for (const [url, type] of [
      [PNG_1PX, 'image/png'],
      [dataUrl('image/jpeg', JPEG_BYTES), 'image/jpeg'],
      [GIF_1PX, 'image/gif'],
      [dataUrl('image/webp', WEBP_BYTES), 'image/webp'],
    ] as const) {
      const res = await upload(url)
      expect(res.statusCode, type).toBe(200)
      const body = res.json()
      expect(body).toEqual({
        imageId: expect.stringMatching(/^img_/),
        tempURL: `temp/images/${body.imageId}`,
        contentType: type,
      })
      const bytes = await a.call('GET', `/api/v1/packages/images/${body.imageId}`)
      expect(bytes.statusCode).toBe(200)
      expect(bytes.headers['content-type']).toBe(type)
      expect(bytes.rawPayload.equals(Buffer.from(url.split(',')[1]!, 'base64'))).toBe(true)
      const row = await t.ctx.db
        .selectFrom('images')
        .select(['sha256', 'byte_size'])
        .where('image_id', '=', body.imageId)
        .executeTakeFirstOrThrow()
      expect(row.byte_size).toBe(bytes.rawPayload.length)
      expect(row.sha256).toMatch(/^[0-9a-f]{64}$/)
    }
  })

  it('answers HEAD and a matching If-None-Match from the record: headers, no body; a stale tag gets the bytes', async () => {
    const id = (await upload(PNG_1PX)).json().imageId as string
    const png = Buffer.from(PNG_1PX.split(',')[1]!, 'base64')
    for (const url of [`/api/v1/packages/images/${id}`, `/temp/images/${id}`]) {
      const got = await t.inject({ method: 'GET', url, headers: me.auth })
      const etag = got.headers.etag as string
      expect(etag).toMatch(/^"[0-9a-f]{64}"$/)

      const head = await t.inject({ method: 'HEAD', url, headers: me.auth })
      expect(head.statusCode).toBe(200)
      expect(head.headers['content-length']).toBe(String(png.length))
      expect(head.headers['content-type']).toBe('image/png')
      expect(head.headers.etag).toBe(etag)
      expect(head.rawPayload).toHaveLength(0)

      for (const tag of [etag, `W/${etag}`, `"other", ${etag}`]) {
        const same = await t.inject({ method: 'GET', url, headers: { ...me.auth, 'if-none-match': tag } })
        expect(same.statusCode, tag).toBe(304)
        expect(same.rawPayload).toHaveLength(0)
        expect(same.headers.etag).toBe(etag)
      }
      const stale = await t.inject({ method: 'GET', url, headers: { ...me.auth, 'if-none-match': '"other"' } })
      expect(stale.statusCode).toBe(200)
      expect(stale.rawPayload.equals(png)).toBe(true)
    }
    const missing = await t.inject({ method: 'HEAD', url: '/api/v1/packages/images/img_none', headers: me.auth })
    expect(missing.statusCode).toBe(404)
  })

  it('refuses a type mismatch, malformed base64, unsupported types and non data URLs', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [PNG_1PX.replace('image/png', 'image/jpeg'), /image\/png but image\/jpeg/],
      ['data:image/png;base64,iVBOR!!w0KGgo=', /malformed/],
      ['data:image/png;base64,abc', /malformed/],
      ['data:image/png;base64,', /empty/],
      ['data:application/pdf;base64,JVBERi0=', /Only image/],
      ['iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB', /data URL/],
      [dataUrl('image/png', Buffer.from('not an image at all')), /not a image\/png/],
      [12, /string/],
    ]
    for (const [body, message] of cases) {
      const res = await upload(body)
      expect(res.statusCode, String(body)).toBe(400)
      expect(res.json().errors[0]).toMatchObject({ errorCode: 'validation_error', additionalParameters: 'base64' })
      expect(res.json().errors[0].errorDescription).toMatch(message)
    }
    expect(
      await t.ctx.db
        .selectFrom('images')
        .select('image_id')
        .where('sub_id', '=', me.subId)
        .where('content_type', '=', 'image/jpeg')
        .execute(),
    ).toHaveLength(1)
  })

  it('answers 413 above the size limit', async () => {
    const big = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(5000)])
    const res = await upload(dataUrl('image/png', big))
    expect(res.statusCode).toBe(413)
    expect(res.json().errors[0]).toMatchObject({ errorCode: 'validation_error', additionalCode: 'IMG-4130' })
    const huge = await upload(`data:image/png;base64,${'A'.repeat(20_000)}`)
    expect(huge.statusCode).toBe(413)
  })

  it('expires temporary images after 24 hours unless attached, and purges them', async () => {
    const temp = (await upload(PNG_1PX)).json()
    const kept = (await upload(PNG_1PX)).json()
    const pkg = await a.call('POST', '/api/v1/packages', {
      package: { trackingNumber: `IMG${Date.now()}` },
      images: [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: kept.tempURL }],
    })
    expect(pkg.statusCode).toBe(201)
    t.clock.advance(24 * 3600 * 1000 + 1)
    try {
      const later = api(t, await t.refresh(me))
      expect((await later.call('GET', `/${temp.tempURL}`)).statusCode).toBe(404)
      expect((await later.call('GET', `/${kept.tempURL}`)).statusCode).toBe(200)
      const late = await later.call('POST', '/api/v1/packages', {
        package: { trackingNumber: `IMG2${Date.now()}` },
        images: [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: temp.tempURL }],
      })
      expect(late.statusCode).toBe(400)
      expect(await t.ctx.receiving.images.purgeExpired()).toBeGreaterThanOrEqual(1)
      const left = await t.ctx.db
        .selectFrom('images')
        .select('image_id')
        .where('image_id', 'in', [temp.imageId, kept.imageId])
        .execute()
      expect(left.map((r) => r.image_id)).toEqual([kept.imageId])
    } finally {
      t.clock.advance(-(24 * 3600 * 1000 + 1))
    }
  })

  it('lets one package take a temporary image, never two', async () => {
    const img = (await upload(PNG_1PX)).json()
    const body = (n: string) => ({
      package: { trackingNumber: n },
      images: [{ imageLevel: 'ASSET', imageType: 'PHOTO', tempURL: img.tempURL }],
    })
    const [x, y] = await Promise.all([
      a.call('POST', '/api/v1/packages', body(`TWO${Date.now()}A`)),
      a.call('POST', '/api/v1/packages', body(`TWO${Date.now()}B`)),
    ])
    expect([x.statusCode, y.statusCode].sort()).toEqual([201, 400])
  })
})
