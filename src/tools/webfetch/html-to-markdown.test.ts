import { describe, expect, it } from "vitest"
import { baseOf, htmlToMarkdown } from "./html-to-markdown.ts"

const page = new URL("https://docs.example.com/guide/intro.html")

describe("htmlToMarkdown", () => {
  it("resolves links against <base href> when the page has one", async () => {
    const html = '<html><head><base href="/v2/"></head><body><a href="api.html">API</a></body></html>'
    expect(baseOf(html, page).href).toBe("https://docs.example.com/v2/")
    expect(await htmlToMarkdown(html, page)).toBe("[API](https://docs.example.com/v2/api.html)")
  })

  it("keeps fragment links, drops javascript: targets and empty anchors, escapes parentheses in targets", async () => {
    const html =
      '<p><a href="#usage">Usage</a> <a href="javascript:go()">Go</a> <a href="/x"></a> <a href="/wiki/A_(b)">A</a></p>'
    expect(await htmlToMarkdown(html, page)).toBe(
      "[Usage](#usage) Go [A](https://docs.example.com/wiki/A_\\(b\\))",
    )
  })

  it("fences code with a fence longer than the backticks inside, and names its language", async () => {
    const html = '<pre><code class="language-md">```js\nx()\n```</code></pre>'
    expect(await htmlToMarkdown(html, page)).toBe("````md\n```js\nx()\n```\n````")
  })

  it("makes a table without <thead> take its first row as the header", async () => {
    const html = "<table><tbody><tr><td>a</td><td>b|c</td></tr><tr><td>1</td><td>2</td></tr></tbody></table>"
    expect(await htmlToMarkdown(html, page)).toBe("| a | b\\|c |\n| --- | --- |\n| 1 | 2 |")
  })
})
