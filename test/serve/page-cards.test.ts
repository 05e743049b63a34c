// The page's call cards tell the truth, in Debian's Chromium against the real `toolbelt serve`: the
// empty page says how to connect, a command that exits 2 is a failed card showing the command, a call
// waiting for approval reads as waiting (and its ask takes the focus and answers keys), a running
// `sleep` is stopped from its card (its process gone), and axe-core finds no serious or critical
// violation, light or dark. With TOOLBELT_DOCS_SCREENSHOTS=1 it refreshes the screenshots in docs/.
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectHttp, processesWith } from "../mcp/helpers.ts"
import {
  ARTIFACTS,
  chromiumPresent,
  openLivePage,
  seriousViolations,
  serveWithToken,
} from "./fixtures/chromium.ts"
import { api, type Project, root, type ServeProcess, until } from "./helpers.ts"

const DOCS = process.env.TOOLBELT_DOCS_SCREENSHOTS === "1" ? join(root, "docs") : undefined
const TOKEN = "page-cards-secret-token"
const present = chromiumPresent("test/serve/page-cards.test.ts")

type Mcp = Awaited<ReturnType<typeof connectHttp>>

describe.skipIf(!present)("call cards, Stop, the empty page, keys and axe", () => {
  let project: Project
  let serve: ServeProcess
  let browser: Browser
  let page: Page
  let mcp: Mcp | undefined
  const auth = { authorization: `Bearer ${TOKEN}` }

  const card = (text: string) => page.locator("li.call", { hasText: text })
  const shot = async (name: string) => {
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
  }

  /** axe-core's serious and critical violations on the page as it is. */
  const violations = () => seriousViolations(page)

  /**
   * The README's screenshots (light, dark, a phone) of a session of their own: a read, a test run
   * that failed, a command running with its output, an ask waiting above. Both are ended after.
   */
  async function docsScreenshots(docs: string): Promise<void> {
    const created = await api(
      serve.url,
      "POST",
      "/api/sessions",
      { title: "Fix the failing parser test" },
      auth,
    )
    const call = (tool: string, input: Record<string, unknown>) =>
      api(serve.url, "POST", `/api/sessions/${created.body.id}/calls`, { tool, input }, auth)
    await call("read", { filePath: "hello.txt" })
    await call("bash", {
      command: "echo 'FAIL  parser.test.ts > parses a bare word'\necho 'Tests  1 failed | 41 passed'\nexit 1",
      description: "Run the parser tests",
    })
    const command = 'for suite in parser lexer printer; do echo "ok $suite"; sleep 0.3; done; sleep 40.2'
    const running = call("bash", { command, description: "Run all the tests" })
    const asked = call("edit", { filePath: "hello.txt", oldString: "there", newString: "world" })
    await page.locator("button.session", { hasText: "Fix the failing parser test" }).click()
    await card("Run all the tests").locator(".badge.running").waitFor()
    await page.locator("article.ask").waitFor()
    await until(
      async () => (await card("Run all the tests").textContent())?.includes("ok printer"),
      "the output",
    )
    await page.locator("body").click({ position: { x: 1, y: 1 } })
    const shoot = (name: string, fullPage = true) => page.screenshot({ path: join(docs, name), fullPage })
    await shoot("serve.png")
    await page.emulateMedia({ colorScheme: "dark" })
    await shoot("serve-dark.png")
    await page.emulateMedia({ colorScheme: "light" })
    await page.setViewportSize({ width: 390, height: 844 })
    await shoot("serve-phone.png", false)
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.locator("article.ask").getByRole("button", { name: "Reject" }).click()
    await card("Run all the tests").getByRole("button", { name: /^Stop/ }).click()
    await Promise.all([running, asked])
  }

  beforeAll(async () => {
    ;({ project, serve } = await serveWithToken({ permission: { edit: "ask" } }, TOKEN))
    // The page's policy allows only its own scripts: axe is injected as the test's own.
    ;({ browser, page } = await openLivePage(serve.pageURL, { bypassCSP: true }))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await mcp?.close()
    await serve?.stop()
    await project?.remove()
  })

  it("the empty page says how to connect: this server's /mcp URL, Claude Code and opencode, no token", async () => {
    const endpoint = `${serve.url}/mcp`
    await page.locator("#connect-heading").waitFor()
    expect(await page.locator("#mcp-url").textContent()).toBe(endpoint)
    const claude = await page.locator("#connect-claude").textContent()
    expect(claude).toBe(
      `claude mcp add --transport http toolbelt ${endpoint} --header "Authorization: Bearer $TOOLBELT_SERVE_TOKEN"`,
    )
    const opencode = JSON.parse((await page.locator("#connect-opencode").textContent()) ?? "")
    expect(opencode.mcp.toolbelt).toEqual({
      type: "remote",
      url: endpoint,
      enabled: true,
      headers: { Authorization: "Bearer {env:TOOLBELT_SERVE_TOKEN}" },
    })
    expect(await page.content()).not.toContain(TOKEN)
    // Copy puts the line on the clipboard.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: serve.url })
    await page.getByRole("button", { name: "Copy the Claude Code command" }).click()
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(claude)
    expect(await violations()).toEqual([])
    await page.emulateMedia({ colorScheme: "dark" })
    expect(await violations()).toEqual([])
    await shot("empty-dark")
    await page.emulateMedia({ colorScheme: "light" })
    await shot("empty")
  })

  it("a command that exits 2 is a failed card showing the command, its description beside it", async () => {
    mcp = await connectHttp(`${serve.url}/mcp`, { headers: auth })
    const result = await mcp.client.callTool({
      name: "bash",
      arguments: { command: "echo checking\necho 'no such thing' >&2\nexit 2", description: "Check a thing" },
    })
    expect(result.isError).toBeFalsy()
    const failed = card("Check a thing")
    await failed.locator(".badge.failed").waitFor()
    expect(await failed.getAttribute("data-state")).toBe("failed")
    expect(await failed.locator(".badge").textContent()).toBe("failed")
    expect(await failed.locator(".badge.completed").count()).toBe(0)
    expect(await failed.locator(".detail").textContent()).toBe("exit 2")
    expect(await failed.locator(".command code").textContent()).toBe(
      "echo checking\necho 'no such thing' >&2\nexit 2",
    )
    expect(await failed.locator(".title").textContent()).toBe("Check a thing")
    // A failed call's output is open, at its end.
    expect(await failed.locator("details").getAttribute("open")).not.toBeNull()
    expect(await failed.locator("pre.output").textContent()).toContain("no such thing")

    // A long command shows its first lines, all on demand.
    const long = Array.from({ length: 8 }, (_, line) => `echo line ${line + 1}`).join("\n")
    await mcp.client.callTool({ name: "bash", arguments: { command: long, description: "Eight lines" } })
    const eight = card("Eight lines")
    await eight.locator(".badge.completed").waitFor()
    expect(await eight.locator(".command code").textContent()).toBe("echo line 1\necho line 2\necho line 3")
    await eight.getByRole("button", { name: "Show all 8 lines" }).click()
    expect(await eight.locator(".command code").textContent()).toBe(long)
  })

  it("a timeout and a kill by a signal are failures of their own, told apart from an exit code", async () => {
    await mcp!.client.callTool({
      name: "bash",
      arguments: { command: "sleep 20", description: "Outlast the limit", timeout: 1000 },
    })
    const late = card("Outlast the limit")
    await late.locator(".badge.timeout").waitFor()
    expect(await late.locator(".badge").textContent()).toBe("timed out")

    await mcp!.client.callTool({
      name: "bash",
      arguments: { command: "kill -KILL $$", description: "Kill itself" },
    })
    const killed = card("Kill itself")
    await killed.locator(".badge.killed").waitFor()
    expect(await killed.locator(".detail").textContent()).toBe("by SIGKILL")
  })

  it("a cut result's whole output is one click away", async () => {
    await mcp!.client.callTool({
      name: "bash",
      arguments: { command: "seq 1 40000", description: "Count far" },
    })
    const long = card("Count far")
    await long.locator(".badge.completed").waitFor()
    const link = long.getByRole("link", { name: "The whole output" })
    const href = await link.getAttribute("href")
    expect(href).toMatch(/^\/api\/outputs\/tool_/)
    const response = await page.request.get(`${serve.url}${href}`)
    expect(response.status()).toBe(200)
    const lines = (await response.text()).trimEnd().split("\n")
    expect(lines).toHaveLength(40000)
    expect(lines.at(-1)).toBe("40000")
  })

  it("a call waiting for approval reads as waiting; its ask takes the focus and `a` allows it", async () => {
    const call = mcp!.client.callTool({
      name: "edit",
      arguments: { filePath: "hello.txt", oldString: "world", newString: "there" },
    })
    const waiting = card("hello.txt").last()
    await waiting.locator(".badge.waiting").waitFor()
    expect(await waiting.getAttribute("data-state")).toBe("waiting")
    expect(await waiting.locator(".badge").textContent()).toBe("waiting for you")
    expect(await waiting.locator(".badge.running").count()).toBe(0)
    await until(
      () => page.evaluate<boolean>("document.activeElement?.matches('article.ask') ?? false"),
      "the new ask to take the focus",
    )
    expect(await violations()).toEqual([])
    await shot("cards-ask")
    await page.keyboard.press("a")
    expect((await call).isError).toBeFalsy()
    expect(await readFile(join(project.dir, "hello.txt"), "utf8")).toBe("hello\nthere\n")
    await waiting.locator(".badge.completed").waitFor()

    // `r` rejects.
    const rejected = mcp!.client.callTool({
      name: "edit",
      arguments: { filePath: "hello.txt", oldString: "there", newString: "everyone" },
    })
    await page.locator("article.ask").waitFor()
    await until(
      () => page.evaluate<boolean>("document.activeElement?.matches('article.ask') ?? false"),
      "the ask to take the focus",
    )
    await page.keyboard.press("r")
    expect((await rejected).isError).toBe(true)
    expect(await readFile(join(project.dir, "hello.txt"), "utf8")).toBe("hello\nthere\n")
  })

  it("a running sleep has a Stop button that ends the call within seconds, its process gone", async () => {
    const call = mcp!.client.callTool({
      name: "bash",
      arguments: { command: "sleep 30.5; echo never", description: "Sleep thirty seconds" },
    })
    const running = card("Sleep thirty seconds")
    await running.locator(".badge.running").waitFor()
    await until(async () => (await processesWith("sleep 30.5")).length > 0, "the sleep to start")
    // Elapsed time ticks.
    const first = await running.locator(".elapsed").textContent()
    await until(
      async () => (await running.locator(".elapsed").textContent()) !== first,
      "the elapsed time to tick",
    )
    expect(await violations()).toEqual([])
    await shot("cards-running")

    const asked = Date.now()
    await running.getByRole("button", { name: "Stop bash: Sleep thirty seconds" }).click()
    await running.locator(".badge.interrupted").waitFor({ timeout: 5000 })
    const took = Date.now() - asked
    console.log(`Stop: the card read interrupted ${took} ms after the click`)
    expect(await running.locator(".detail").textContent()).toBe("stopped from the page")
    expect(await running.locator("button.stop").count()).toBe(0)
    const result = await call
    expect(result.isError).toBe(true)
    await until(async () => (await processesWith("sleep 30.5")).length === 0, "the sleep to be gone", 5000)
  })

  it("no serious or critical axe violation with calls on the page, light or dark; screenshots", async () => {
    expect(await violations()).toEqual([])
    await shot("cards")
    await page.emulateMedia({ colorScheme: "dark" })
    expect(await violations()).toEqual([])
    await shot("cards-dark")
    await page.setViewportSize({ width: 380, height: 800 })
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(380)
    expect(await violations()).toEqual([])
    await shot("cards-phone-dark")
    await page.emulateMedia({ colorScheme: "light" })
    await shot("cards-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
    if (DOCS) await docsScreenshots(DOCS)
  })
})
