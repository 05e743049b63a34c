// The page as a workspace, in Debian's Chromium against a real serve (in this process, with the AI SDK's
// mock model as its model): a turn started from the prompt box shows its prompt, the model's words and
// its call in order; the tools view lists every tool with its size in tokens and a call to `read` made
// from the form its schema drew returns the file; a session created through the API is listed before
// its first call, marked new; the journal shows a call's steps; axe-core finds no serious or critical
// violation on these views, light or dark.
import { join } from "node:path"
import { MockLanguageModelV4 } from "ai/test"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type Chunk,
  finish,
  step,
  text,
  call as toolCall,
} from "../../src/adapters/ai/fixtures/mock-model.ts"
import {
  ARTIFACTS,
  CHROMIUM,
  chromiumPresent,
  openLivePage,
  seriousViolations,
  type Violation,
} from "./fixtures/chromium.ts"
import { api, newSession, type Running, root, startServer, until } from "./helpers.ts"

/** With TOOLBELT_DOCS_SCREENSHOTS=1, the conversation and the tools view are the README's too. */
const DOCS: Record<string, string> =
  process.env.TOOLBELT_DOCS_SCREENSHOTS === "1"
    ? { conversation: join(root, "docs", "serve-turn.png"), tools: join(root, "docs", "serve-tools.png") }
    : {}
const present = chromiumPresent("test/serve/page-views.test.ts")

/** Lets the gated reply go on past its first words. */
let release: () => void = () => {}

/** A reply whose first words stream at once and the rest only once `release` is called. */
function gated(): ReadableStream<Chunk> {
  const opened = new Promise<void>((resolve) => {
    release = resolve
  })
  return new ReadableStream<Chunk>({
    async start(controller) {
      controller.enqueue({ type: "stream-start", warnings: [] })
      controller.enqueue({ type: "text-start", id: "t" })
      controller.enqueue({ type: "text-delta", id: "t", delta: "Streaming the first words" })
      await opened
      controller.enqueue({ type: "text-delta", id: "t", delta: ", then the rest." })
      controller.enqueue({ type: "text-end", id: "t" })
      controller.enqueue(finish("stop"))
      controller.close()
    },
  })
}

describe.skipIf(!present)("turns, tools, the journal and new sessions on the page", () => {
  let running: Running
  let browser: Browser
  let page: Page

  /** axe-core's serious and critical violations, light and dark. */
  async function violations(): Promise<Violation[]> {
    const found: Violation[] = []
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme })
      found.push(...(await seriousViolations(page)))
    }
    await page.emulateMedia({ colorScheme: "light" })
    return found
  }

  const shot = async (name: string) => {
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true })
    if (DOCS[name]) await page.screenshot({ path: DOCS[name], fullPage: true })
  }

  beforeAll(async () => {
    // Two scripted steps, then a reply that streams as the test says (a gate between its words).
    const steps = [
      step(text("Reading it first. "), toolCall("call_turn_read", "read", { filePath: "hello.txt" })),
      step(text("It says hello, then world.")),
      // The second turn calls a tool before it says anything, then speaks through the gate.
      step(toolCall("call_quiet_read", "read", { filePath: "hello.txt" })),
    ]
    const model = new MockLanguageModelV4({
      provider: "mock",
      modelId: "mock-model",
      doStream: async () => steps.shift() ?? { stream: gated() },
    })
    running = await startServer({
      model: { model, providerID: "mock", modelID: "mock-model", spec: "mock/mock-model" },
    })
    ;({ browser, page } = await openLivePage(running.server.pageURL, { bypassCSP: true }))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await running?.close()
  }, 60_000)

  it("a session created through the API is listed before its first call, marked new until shown", async () => {
    const first = await newSession(running.url, "The first session")
    await page.locator("button.session", { hasText: "The first session" }).click()
    await page.locator("#session-heading", { hasText: "The first session" }).waitFor()
    const id = await newSession(running.url, "Made through the API")
    const listed = page.locator("button.session", { hasText: "Made through the API" })
    await listed.waitFor({ timeout: 10_000 })
    expect(await listed.locator(".new-count").textContent()).toBe("new")
    expect((await api(running.url, "GET", `/api/sessions/${id}`)).body.parts).toEqual([])
    await listed.click()
    await page.locator("#session-heading", { hasText: "Made through the API" }).waitFor()
    expect(await listed.locator(".new-count").count()).toBe(0)
    expect(first).not.toBe(id)
  }, 60_000)

  it("a turn from the prompt box shows its prompt, the model's words and its call, in order", async () => {
    const session = await newSession(running.url, "A turn")
    await page.locator("button.session", { hasText: "A turn" }).click()
    await page.locator("#session-heading", { hasText: "A turn" }).waitFor()
    await page.getByLabel("Prompt").fill("What does hello.txt say?")
    await page.getByRole("button", { name: "Send" }).click()
    const conversation = page.locator("ol.conversation")
    await conversation.locator(".message.reply", { hasText: "It says hello, then world." }).waitFor()
    const items = await conversation
      .locator(":scope > li")
      .evaluateAll((nodes) =>
        nodes.map((node) =>
          node.classList.contains("call")
            ? `call ${node.querySelector(".tool")?.textContent} ${node.getAttribute("data-state")}`
            : `${node.classList.contains("prompt") ? "prompt" : "reply"} ${node.querySelector(".words")?.textContent?.trim()}`,
        ),
      )
    expect(items).toEqual([
      "prompt What does hello.txt say?",
      "reply Reading it first.",
      "call read completed",
      "reply It says hello, then world.",
    ])
    // As stored: the same conversation after a reload.
    const messages = await api(running.url, "GET", `/api/sessions/${session}/messages`)
    expect(messages.body.map((message: { role: string }) => message.role)).toEqual(["user", "assistant"])
    await page.reload()
    await page.locator("button.session", { hasText: "A turn" }).click()
    await conversation.locator(".message.prompt", { hasText: "What does hello.txt say?" }).waitFor()
    await conversation.locator(".message.reply", { hasText: "It says hello, then world." }).waitFor()
    expect(await violations()).toEqual([])
    await shot("conversation")
  }, 60_000)

  it("the model's words show as they stream, before the turn ends", async () => {
    await page.locator("button.session", { hasText: "A turn" }).click()
    await page.getByLabel("Prompt").fill("Say something slowly.")
    await page.getByRole("button", { name: "Send" }).click()
    const streaming = page.locator(".message.reply.streaming")
    await streaming.waitFor()
    expect((await streaming.locator(".words").textContent())?.trim()).toBe("Streaming the first words")
    // The call it made before its first words stays before them.
    const quiet = page.locator("li.call[data-call='call_quiet_read']")
    expect(await quiet.count()).toBe(1)
    expect(
      await quiet.evaluate((node) => node.nextElementSibling?.classList.contains("streaming") ?? false),
    ).toBe(true)
    expect(await page.getByRole("button", { name: "Running…" }).count()).toBe(1)
    release()
    await page.locator(".message.reply", { hasText: "Streaming the first words, then the rest." }).waitFor()
    expect(await streaming.count()).toBe(0)
    expect(
      await quiet.evaluate(
        (node) => node.nextElementSibling?.textContent?.includes("then the rest.") ?? false,
      ),
    ).toBe(true)
    await page.getByRole("button", { name: "Send" }).waitFor()
  }, 60_000)

  it("the journal shows a call's steps in order", async () => {
    await page.locator("button.session", { hasText: "A turn" }).click()
    await page.getByRole("button", { name: "Journal" }).click()
    const rows = page.locator("table.journal tbody tr[data-call='call_turn_read']")
    await rows.first().waitFor()
    const kinds = await rows.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-kind")))
    expect(kinds[0]).toBe("requested")
    expect(kinds).toContain("started")
    expect(kinds.at(-1)).toBe("finished")
    expect(await rows.first().locator(".call-ref").textContent()).toContain("read")
    expect(await violations()).toEqual([])
    await shot("journal")
    await page.getByRole("button", { name: "Conversation" }).click()
  }, 60_000)

  it("the tools view lists every tool with its tokens, and a call to read from its form returns the file", async () => {
    const tools = (await api(running.url, "GET", "/api/tools")).body as { name: string; tokens: number }[]
    await page.getByRole("link", { name: "Tools" }).click()
    await page.locator("#tools-heading").waitFor()
    expect(await page.locator("li.tool-item").count()).toBe(tools.length)
    const read = page.locator("li.tool-item[data-tool='read']")
    const tokens = tools.find((tool) => tool.name === "read")!.tokens
    expect(tokens).toBeGreaterThan(0)
    expect(await read.locator(".tokens").textContent()).toBe(`${tokens.toLocaleString("en")} tokens`)
    await read.locator("summary").first().click()
    await read.getByLabel(/^filePath/).fill("hello.txt")
    // A number field too; and a third identical read in the session would be asked about as a loop.
    await read.getByLabel(/^offset/).fill("1")
    await read.getByLabel("Session").selectOption({ label: "A turn" })
    await read.getByRole("button", { name: "Call read" }).click()
    const result = read.locator(".try-result")
    await result.waitFor()
    expect(await result.locator(".badge").textContent()).toBe("completed")
    expect(await result.locator("pre").textContent()).toContain("hello")
    expect(await result.locator("pre").textContent()).toContain("world")
    expect(await violations()).toEqual([])
    await shot("tools")
    // Made in that session: its conversation has the call.
    await page.getByRole("link", { name: "Sessions" }).click()
    await page.locator("button.session", { hasText: "A turn" }).click()
    await until(
      async () => (await page.locator("li.call[data-state='completed']").count()) === 3,
      "the three reads",
    )
  }, 60_000)
})

describe.skipIf(!present)("the prompt box without a model", () => {
  it("says how to configure one instead", async () => {
    const running = await startServer()
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] })
    try {
      const page = await browser.newPage()
      await page.goto(running.server.pageURL)
      await newSession(running.url, "No model here")
      await page.locator("button.session", { hasText: "No model here" }).click()
      expect(await page.locator("#no-model").textContent()).toContain("toolbelt serve --model provider/id")
      expect(await page.locator("#prompt").count()).toBe(0)
    } finally {
      await browser.close()
      await running.close()
    }
  })
})
