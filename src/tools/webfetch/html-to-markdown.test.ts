import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { appPage } from "./fixtures/big-pages.ts"
import { baseOf, htmlToMarkdown } from "./html-to-markdown.ts"

const page = new URL("https://docs.example.com/guide/intro.html")

describe("htmlToMarkdown", () => {
  it("resolves links against <base href> when the page has one", async () => {
    const html = '<html><head><base href="/v2/"></head><body><a href="api.html">API</a></body></html>'
    expect(baseOf("/v2/", page).href).toBe("https://docs.example.com/v2/")
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

describe("htmlToMarkdown: what the slimmed page keeps", () => {
  it("starts with the page's title, and says nothing when the page has only a title", async () => {
    const html =
      "<html><head><title>Guide · Docs</title><script>x()</script></head><body><p>Body</p></body></html>"
    expect(await htmlToMarkdown(html, page)).toBe("Guide · Docs\n\nBody")
    expect(
      await htmlToMarkdown(
        "<html><head><title>App</title></head><body><div id=root></div></body></html>",
        page,
      ),
    ).toBe("")
  })

  it("names a code block's language from its wrapper (GitHub) and keeps its text without the highlighter's markup", async () => {
    const html =
      '<div class="highlight highlight-source-shell"><pre><span class="pl-c1">npm</span> install <span class="pl-s">x</span><br>npm test</pre></div>'
    expect(await htmlToMarkdown(html, page)).toBe("```shell\nnpm install x\nnpm test\n```")
  })

  it("keeps images' alt text with absolute sources, a lazy image's real source; drops inline data and images without a source", async () => {
    const html = `<p><img src="../img/a.png" alt="Chart of
      load" title="Load"> <img src="data:image/gif;base64,R0l" data-src="/lazy.png" alt="Lazy">
      <img src="data:image/png;base64,iVBOR" alt="Inline"> <img alt="Nothing"></p>`
    expect(await htmlToMarkdown(html, page)).toBe(
      '![Chart of load](https://docs.example.com/img/a.png "Load") ![Lazy](https://docs.example.com/lazy.png)',
    )
  })

  it("drops what a page shows no text for: scripts, styles, SVG icons' titles, frames, forms' hidden state", async () => {
    const html = `<p>Go <a href="/gh"><svg><title>GitHub icon</title><path d="M0"/></svg>GitHub</a></p>
      <style>p{color:red}</style><script>track()</script><noscript>Enable JS</noscript><iframe src="/ad">Ad</iframe>`
    expect(await htmlToMarkdown(html, page)).toBe("Go [GitHub](https://docs.example.com/gh)")
  })
})

describe("htmlToMarkdown: sections", () => {
  const samples: Record<string, string> = {
    "the saved documentation page": readFileSync(
      new URL("fixtures/docs-page.html.bin", import.meta.url),
      "utf8",
    ),
    "a web application's page": appPage(40_000).toString("utf8"),
    "nested blocks, lists, tables, quotes and code": `<body><div>Intro <b>bold</b><p>para 1</p>tail<div>
      <h2>Head</h2><ul><li>a</li><li>b<ul><li>b1</li><li>b2</li></ul></li><li><p>c para</p></li><li>d</li></ul>
      <ol start="5"><li>five</li><li>six</li><li>seven</li></ol><ol><li><p>one</p></li><li><p>two</p></li><li>three</li></ol>
      <table><tr><td>h1</td><td>h2</td></tr><tr><td>r1</td><td>x</td></tr><tr><td>r2</td><td>y</td></tr></table>
      <table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></tbody></table>
      <dl><dt>term</dt><dd><p>def</p><p>def 2</p></dd><dt>t2</dt><dd>d2</dd></dl><blockquote><p>q1</p><p>q2</p></blockquote>
      <section><p>s1<br>line 2</p><hr><pre><code class="language-js">a()
  b()</code></pre></section><p>last <a href="x">link</a> <img src="i.png" alt="pic"></p></div>after<ul><li>x</li></ul></div></body>`,
  }

  it.each(Object.entries(samples))(
    "cut at every place it can be, %s gives the same markdown as whole",
    async (_what, html) => {
      const whole = await htmlToMarkdown(html, page, Number.POSITIVE_INFINITY)
      const cut = await htmlToMarkdown(html, page, 1)
      // A seam can only drop the blank space turndown leaves at the end of a line.
      const lines = (markdown: string) => markdown.replace(/ +$/gm, "")
      expect(lines(cut)).toBe(lines(whole))
      expect(whole.length).toBeGreaterThan(300)
    },
  )

  it("keeps a long table one table with one header, and a long ordered list numbered on", async () => {
    const rows = Array.from({ length: 300 }, (_, index) => `<tr><td>${index}</td><td>row ${index}</td></tr>`)
    const items = Array.from({ length: 300 }, (_, index) => `<li>item ${index + 1}</li>`)
    const html = `<table><tr><th>n</th><th>name</th></tr>${rows.join("")}</table><ol>${items.join("")}</ol>`
    const markdown = await htmlToMarkdown(html, page, 1000)
    const table = Array.from({ length: 300 }, (_, index) => `| ${index} | row ${index} |`)
    const list = Array.from({ length: 300 }, (_, index) => `${index + 1}.  item ${index + 1}`)
    expect(markdown).toBe(`| n | name |\n| --- | --- |\n${table.join("\n")}\n\n${list.join("\n")}`)
  })
})

describe("htmlToMarkdown: long code", () => {
  it("fences a listing with more runs of backticks than a function call takes arguments", async () => {
    const markdown = await htmlToMarkdown(`<pre>${"`a` ".repeat(200_000)}\`\`\`\`</pre>`, page)
    expect(markdown.startsWith("`````\n`a` `a`")).toBe(true)
    expect(markdown.endsWith("````\n`````")).toBe(true)
  })
})
