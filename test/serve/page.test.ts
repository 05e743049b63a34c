// The page of `toolbelt serve`, end to end: the real command, a real MCP client at /mcp, and Debian's
// Chromium driven by playwright-core. Screenshots of the main views go to test/serve/artifacts/.
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { database } from "../../src/runtime/question/fixtures/questions.ts"
import { connectHttp } from "../mcp/helpers.ts"
import { ARTIFACTS, CHROMIUM, chromiumPresent, openLivePage, serveWithToken } from "./fixtures/chromium.ts"
import { api, type Project, type ServeProcess, startServe, until } from "./helpers.ts"

const TOKEN = "page-test-token"
const present = chromiumPresent("test/serve/page.test.ts", "skipping the browser tests")

type Mcp = Awaited<ReturnType<typeof connectHttp>>

function resultText(result: unknown): string {
  return (result as { content: { text?: string }[] }).content.map((part) => part.text ?? "").join("\n")
}

describe.skipIf(!present)(`the page in Chromium (${CHROMIUM})`, () => {
  let project: Project
  let serve: ServeProcess
  let browser: Browser
  let page: Page
  let mcp: Mcp
  const auth = { authorization: `Bearer ${TOKEN}` }

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
  const askCard = () => page.locator("article.ask")

  beforeAll(async () => {
    // Edits ask (so an ask shows its diff); everything else is the build agent's defaults.
    ;({ project, serve } = await serveWithToken({ permission: { edit: "ask" } }, TOKEN))
    mcp = await connectHttp(`${serve.url}/mcp`, { headers: auth })
    // The one-time login link sets the page's cookie.
    ;({ browser, page } = await openLivePage(serve.pageURL))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await mcp?.close()
    await serve?.stop()
    await project?.remove()
  })

  it("a call made by an MCP client appears live, in the client's session", async () => {
    await expect.poll(() => page.locator("#session-heading").textContent()).toBe("MCP: toolbelt-test")
    const result = await mcp.client.callTool({ name: "read", arguments: { filePath: "hello.txt" } })
    expect(result.isError).toBeFalsy()
    const card = page.locator("li.call", { hasText: "hello.txt" })
    await card.locator(".badge.completed").waitFor()
    expect(await card.locator(".tool").textContent()).toBe("read")
  })

  it("a command's output streams into its card while it runs", async () => {
    const call = mcp.client.callTool({
      name: "bash",
      arguments: { command: "echo first line; sleep 2; echo second line", description: "Print two lines" },
    })
    const card = page.locator("li.call", { hasText: "Print two lines" })
    const live = card.locator("pre.output.live")
    await until(
      async () => (await live.count()) > 0 && (await live.textContent())?.includes("first line"),
      "live output",
    )
    expect(await card.locator(".badge.running").count()).toBe(1)
    expect((await call).isError).toBeFalsy()
    await card.locator(".badge.completed").waitFor()
  })

  it("an ask approved in the page lets the call complete, its diff shown as a diff", async () => {
    const call = mcp.client.callTool({
      name: "edit",
      arguments: { filePath: "hello.txt", oldString: "world", newString: "there" },
    })
    await askCard().waitFor()
    expect(await askCard().locator(".permission").textContent()).toBe("edit")
    expect(await askCard().locator(".diff .add").allTextContents()).toEqual(["+there"])
    expect(await askCard().locator(".saves").textContent()).toContain("Always saves edit for")
    await page.locator("li.call .badge.waiting").waitFor()
    await shot("ask")
    await askCard().getByRole("button", { name: "Allow once" }).click()
    expect((await call).isError).toBeFalsy()
    expect(await readFile(join(project.dir, "hello.txt"), "utf8")).toBe("hello\nthere\n")
    await askCard().waitFor({ state: "detached" })
    const done = page.locator("li.call", { hasText: "edit" }).last()
    await done.locator(".badge.completed").waitFor()
    expect(await done.locator(".diff .del").allTextContents()).toEqual(["-world"])
    await shot("timeline")
  })

  it("an ask rejected with a message: the message reaches the caller", async () => {
    const call = mcp.client.callTool({
      name: "edit",
      arguments: { filePath: "hello.txt", oldString: "there", newString: "everyone" },
    })
    await askCard().waitFor()
    await askCard().getByLabel("Message to the agent (optional)").fill("Keep the greeting as it is.")
    await askCard().getByRole("button", { name: "Reject" }).click()
    const result = await call
    expect(result.isError).toBe(true)
    expect(resultText(result)).toContain("Keep the greeting as it is.")
    expect(await readFile(join(project.dir, "hello.txt"), "utf8")).toBe("hello\nthere\n")
  })

  it("works with the keyboard alone: Tab to Allow once, Enter", async () => {
    const call = mcp.client.callTool({
      name: "edit",
      arguments: { filePath: "hello.txt", oldString: "hello", newString: "hi" },
    })
    await askCard().waitFor()
    await page.locator("body").click({ position: { x: 1, y: 1 } })
    let focused = ""
    for (let presses = 0; presses < 40 && focused !== "Allow once"; presses++) {
      await page.keyboard.press("Tab")
      focused = await page.evaluate<string>('document.activeElement?.textContent ?? ""')
    }
    expect(focused).toBe("Allow once")
    await page.keyboard.press("Enter")
    expect((await call).isError).toBeFalsy()
    expect(await readFile(join(project.dir, "hello.txt"), "utf8")).toBe("hi\nthere\n")
  })

  it("always saves an approval; revoked in the page, the same call asks again", async () => {
    const first = mcp.client.callTool({ name: "read", arguments: { filePath: "/etc/hostname" } })
    await askCard().waitFor()
    expect(await askCard().locator(".saves").textContent()).toContain("external_directory for /etc/*")
    await askCard().getByRole("button", { name: "Always allow" }).click()
    expect((await first).isError).toBeFalsy()
    // Allowed now without asking.
    expect(
      (await mcp.client.callTool({ name: "read", arguments: { filePath: "/etc/hosts" } })).isError,
    ).toBeFalsy()

    await page.getByRole("link", { name: /Approvals/ }).click()
    const row = page.locator("tr[data-approval]", { hasText: "/etc/*" })
    await row.waitFor()
    await shot("approvals")
    await row.getByRole("button", { name: "Revoke external_directory /etc/*" }).click()
    await row.waitFor({ state: "detached" })
    expect((await api(serve.url, "GET", "/api/approvals", undefined, auth)).body).toEqual([])

    const again = mcp.client.callTool({ name: "read", arguments: { filePath: "/etc/hostname" } })
    await askCard().waitFor()
    await askCard().getByRole("button", { name: "Allow once" }).click()
    expect((await again).isError).toBeFalsy()
    await page.getByRole("link", { name: "Sessions" }).click()
  })

  it("a question is answered in its form", async () => {
    const call = mcp.client.callTool({
      name: "question",
      arguments: {
        questions: [database],
      },
    })
    const form = page.locator("form.question")
    await form.waitFor()
    await shot("question")
    await form.getByLabel("Redis").check()
    await form.getByRole("button", { name: "Answer" }).click()
    const result = await call
    expect(result.isError).toBeFalsy()
    expect(resultText(result)).toContain("Redis")
    await form.waitFor({ state: "detached" })
  })

  it("finds sessions by search, and stays readable at a phone's width", async () => {
    // A session made through the API shows up with its first call.
    const session = await api(serve.url, "POST", "/api/sessions", { title: "Refactor the parser" }, auth)
    expect(session.status).toBe(201)
    const listed = await api(
      serve.url,
      "POST",
      `/api/sessions/${session.body.id}/calls`,
      { tool: "glob", input: { pattern: "*" } },
      auth,
    )
    expect(listed.body.status).toBe("completed")
    const search = page.getByLabel("Search sessions")
    await page.locator("button.session", { hasText: "Refactor the parser" }).waitFor()
    await search.fill("parser")
    await expect.poll(() => page.locator("button.session").count()).toBe(1)
    expect(await page.locator("button.session").textContent()).toContain("Refactor the parser")
    await search.fill("")

    await page.setViewportSize({ width: 380, height: 800 })
    const width = await page.evaluate<number>("document.documentElement.scrollWidth")
    expect(width).toBeLessThanOrEqual(380)
    await shot("narrow")
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it("says so while the server is down, and reconnects by itself when it is back", async () => {
    const port = new URL(serve.url).port
    await serve.stop()
    await expect.poll(() => page.locator(".connection").textContent()).toBe("Disconnected: reconnecting…")
    await shot("disconnected")
    // The same port again (the later --port wins over the helper's --port 0).
    serve = await startServe(project, ["--port", port])
    await expect.poll(() => page.locator(".connection").textContent(), { timeout: 20_000 }).toBe("Live")
    // The state came back from the store: the session and its calls.
    await page.locator("button.session", { hasText: "MCP: toolbelt-test" }).click()
    await page.locator("li.call", { hasText: "hello.txt" }).first().waitFor()
    // And it is live again.
    const fresh = await connectHttp(`${serve.url}/mcp`, { headers: auth })
    try {
      await fresh.client.callTool({ name: "glob", arguments: { pattern: "*.txt" } })
      const sessions = await api(serve.url, "GET", "/api/sessions", undefined, auth)
      expect(
        sessions.body.filter((session: { title: string }) => session.title === "MCP: toolbelt-test"),
      ).toHaveLength(2)
    } finally {
      await fresh.close()
    }
    await until(
      () =>
        page
          .locator(".connection")
          .textContent()
          .then((text) => text === "Live"),
      "Live",
    )
  }, 60_000)
})
