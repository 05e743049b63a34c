import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { isToolFailure } from "../../runtime/tool/index.ts"
import { docsPage } from "./fixtures/big-pages.ts"
import { htmlToMarkdown } from "./html-to-markdown.ts"
import { htmlToMarkdownOffThread, WORKER_LIMITS } from "./markdown-off-thread.ts"

const pageUrl = new URL("https://docs.harbor.example/docs/guides/streaming")

describe("htmlToMarkdownOffThread", () => {
  it("gives the markdown the conversion gives in this thread", async () => {
    const html = readFileSync(new URL("fixtures/docs-page.html.bin", import.meta.url), "utf8")
    const markdown = await htmlToMarkdownOffThread({ html, pageUrl })
    expect(markdown).toBe(await htmlToMarkdown(html, pageUrl))
    expect(markdown).toContain("# Streaming responses")
  })

  it("rejects with the abort's reason when the call is aborted during the conversion or before it", async () => {
    const abort = new AbortController()
    const converting = htmlToMarkdownOffThread({
      html: docsPage(2 * 1024 * 1024).toString("utf8"),
      pageUrl,
      signal: abort.signal,
    })
    abort.abort(new Error("the call was interrupted"))
    await expect(converting).rejects.toThrow("the call was interrupted")
    await expect(
      htmlToMarkdownOffThread({ html: "<p>x</p>", pageUrl, signal: abort.signal }),
    ).rejects.toThrow("the call was interrupted")
  })

  it("turns a page that needs more memory than the worker may have into a ToolFailure that offers the other formats", async () => {
    const html = docsPage(5 * 1024 * 1024).toString("utf8")
    const error = await htmlToMarkdownOffThread({
      html,
      pageUrl,
      limits: { ...WORKER_LIMITS, maxOldGenerationSizeMb: 16 },
    }).catch((caught: unknown) => caught)
    expect(isToolFailure(error)).toBe(true)
    expect((error as Error).message).toBe(
      `Converting ${pageUrl.href} (${(html.length / 1_000_000).toFixed(1)} MB of HTML) to markdown needs more than 16 MB of memory. Fetch it with format "text" (read as it streams) or "html" instead.`,
    )
  })
})
