import { AxeBuilder } from '@axe-core/playwright'
import { mkdirSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { buildTestApp, type TestApp } from '../support/build-test-app.js'

/** Debian's Chromium (apt-get install chromium), as CI installs it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * Flags for a browser on a machine with no way out: no sandbox (containers), no GPU, and none of
 * Chromium's own background calls (updates, sync, field trials), so the only requests are the page's.
 */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-features=Translate,OptimizationHints,MediaRouter',
]

export const DESKTOP = { width: 1280, height: 800 }
export const TABLET = { width: 768, height: 1024 }
export const SCREENSHOTS = path.resolve('test-artifacts/screenshots')

export interface ConsoleHarness {
  t: TestApp
  /** http://127.0.0.1:PORT */
  origin: string
  browser: Browser
  /** A fresh browser context (its own cookies) and page at this viewport; every request it makes is recorded. */
  open(viewport?: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }>
  /** Hosts other than the app's that any page asked for: must stay empty. */
  elsewhere: string[]
  /** Errors thrown in any page: must stay empty. */
  pageErrors: string[]
}

/**
 * Launches Chromium. Playwright gives each launch a fresh profile directory of its own (and removes
 * it on close): nothing from an earlier run, no first-run or sync state.
 */
export async function launchChromium(extraArgs: string[] = []): Promise<{ browser: Browser; close(): Promise<void> }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...ARGS, ...extraArgs] })
  return { browser, close: () => browser.close() }
}

/** The real app listening on a local port (on the test database) and Chromium, for the tests of this file. */
export function useConsole(env: Record<string, string> = {}, chromiumArgs: () => string[] = () => []): ConsoleHarness {
  const harness = { elsewhere: [] as string[], pageErrors: [] as string[] } as unknown as ConsoleHarness & {
    closeBrowser?: () => Promise<void>
  }
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true })
    const t = await buildTestApp(env)
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = t.app.server.address() as AddressInfo
    const origin = `http://127.0.0.1:${port}`
    const launched = await launchChromium(chromiumArgs())
    Object.assign(harness, {
      t,
      origin,
      browser: launched.browser,
      closeBrowser: () => launched.close(),
      async open(viewport = DESKTOP) {
        const context = await launched.browser.newContext({ viewport, baseURL: origin })
        context.on('request', (request) => {
          const url = new URL(request.url())
          if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) return // data:, blob:
          if (url.origin !== origin) harness.elsewhere.push(request.url())
        })
        const page = await context.newPage()
        pages.add(page)
        page.on('pageerror', (error) => harness.pageErrors.push(error.message))
        return { context, page }
      },
    })
  })
  // A failed test leaves its page open: keep what it showed (screenshot, alerts) for the report, then close it.
  const pages = new Set<Page>()
  afterEach(async (ctx) => {
    const failed = ctx.task.result?.state === 'fail'
    for (const page of pages) {
      if (failed && !page.isClosed()) {
        const name = `FAILED-${ctx.task.name.slice(0, 40).replace(/[^A-Za-z0-9]+/g, '-')}`
        await screenshot(page, name).catch(() => {})
        const alerts = await page
          .locator('.alert')
          .allTextContents()
          .catch(() => [])
        console.error(`${ctx.task.name}: page ${page.url()} shows ${JSON.stringify(alerts)}; screenshot ${name}.png`)
      }
      await page
        .context()
        .close()
        .catch(() => {})
    }
    pages.clear()
  })
  afterAll(async () => {
    await harness.closeBrowser?.()
    const t = harness.t as TestApp | undefined
    if (!t) return
    t.app.server.closeAllConnections()
    await t.ctx.webhooks.close()
    await t.close()
  })
  return harness
}

/** Saves a screenshot of the page under test-artifacts/screenshots/ (kept by CI as an artifact). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

/** axe-core on the page as it is now: no serious or critical violation (WCAG 2.x A/AA rules). */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  const bad = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  expect(bad, `accessibility of ${screen}`).toEqual([])
}

/** Signs in through the form, as a person does. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/console')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
}
