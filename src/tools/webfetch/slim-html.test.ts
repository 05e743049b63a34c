import { describe, expect, it } from "vitest"
import { type Section, type SlimPage, slimHtml } from "./slim-html.ts"

/** The sections of a page, and what slimHtml said of it. */
function slim(html: string, sectionChars?: number): { sections: Section[]; page: SlimPage } {
  const sections: Section[] = []
  const page = slimHtml(html, (section) => sections.push(section), sectionChars)
  return { sections, page }
}

function slimmed(html: string): string {
  return slim(html)
    .sections.map((section) => section.html)
    .join("")
}

describe("slimHtml: what is kept", () => {
  it("drops scripts, styles, noscript, frames, objects, templates, SVG, metadata and comments, with their content", () => {
    const html = `<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/a.css">
<style>.a{color:red}</style><script>track("head")</script></head><body>
<!-- a comment --><p>Kept <b>text</b></p><script type="application/json">{"state":1}</script>
<noscript><img src="/pixel.gif" alt="pixel"></noscript><iframe src="/ad">ad text</iframe>
<object data="/x.swf">object text</object><embed src="/y"><template><p>template text</p></template>
<svg viewBox="0 0 24 24"><title>Icon</title><path d="M0 0h24v24H0z"/><text>svg text</text></svg><p>End</p></body></html>`
    const out = slimmed(html)
    expect(out).toContain("<p>Kept <b>text</b></p>")
    expect(out).toContain("<p>End</p>")
    for (const gone of [
      "track",
      "color:red",
      "state",
      "pixel",
      "ad text",
      "object text",
      "template text",
      "Icon",
      "svg text",
      "a comment",
      "<meta",
      "<link",
      "<svg",
      "DOCTYPE",
      "<html",
      "<head",
      "<body",
    ])
      expect(out).not.toContain(gone)
  })

  it("keeps only the attributes the rules read, escaped; text re-escaped, blank space runs as one space", () => {
    const html = `<div class="card p-4" style="color:red" data-track='{"a":1}' aria-label="Card" id="c1">
      <a class="link" href="/docs?a=1&amp;b=2" title="The &quot;docs&quot;" target="_blank">Docs &amp; more</a>
      <img class="w-4" src="/i.png" alt="An &lt;icon&gt;" srcset="/i@2x.png 2x">   1 &lt; 2
    </div>`
    expect(slimmed(html)).toBe(
      '<div> <a href="/docs?a=1&amp;b=2" title="The &quot;docs&quot;">Docs &amp; more</a> <img src="/i.png" alt="An <icon>"> 1 &lt; 2 </div>',
    )
  })

  it("reads the first <title> and <base href>, not an SVG's title", () => {
    const html = `<html><head><title>  Page
      title </title><base href="/v2/"><base href="/v3/"></head>
      <body><svg><title>Icon</title></svg><title>Second</title><p>x</p></body></html>`
    expect(slim(html).page).toEqual({ title: "Page title", baseHref: "/v2/" })
    expect(slim("<svg><title>Icon</title></svg><p>x</p>").page).toEqual({ title: "", baseHref: undefined })
  })

  it("keeps content that an unclosed <head> runs into", () => {
    expect(slimmed("<html><head><title>T</title><h1>Heading</h1><p>Text</p>")).toBe(
      "<h1>Heading</h1><p>Text</p>",
    )
  })

  it("makes a <pre> its text alone: highlighter spans dropped, <br> as a line break, the language kept", () => {
    const html =
      '<pre class="prism-code language-ts"><code><span class="token keyword">const</span> a <span class="token operator">=</span> 1<br>a &lt; 2</code></pre>'
    expect(slimmed(html)).toBe('<pre class="language-ts">\nconst a = 1\na &lt; 2</pre>')
  })

  it("takes a <pre>'s language from its <code>, else from its wrapper (GitHub, Sphinx, Docusaurus)", () => {
    expect(slimmed('<pre><code class="language-py">x</code></pre>')).toBe(
      '<pre class="language-py">\nx</pre>',
    )
    expect(slimmed('<div class="highlight highlight-source-shell"><pre>ls</pre></div>')).toBe(
      '<div><pre class="language-shell">\nls</pre></div>',
    )
    expect(
      slimmed('<div class="highlight-python notranslate"><div class="highlight"><pre>x</pre></div></div>'),
    ).toBe('<div><div><pre class="language-python">\nx</pre></div></div>')
    expect(slimmed('<div class="lang-en"><pre>x</pre></div>')).toBe("<div><pre>\nx</pre></div>")
  })

  it("drops the newline right after <pre> as the HTML parser does, keeps one after <code>", () => {
    expect(slimmed("<pre>\nfirst\n</pre>")).toBe("<pre>\nfirst\n</pre>")
    expect(slimmed("<pre><code>\nsecond</code></pre>")).toBe("<pre>\n\nsecond</pre>")
  })

  it("keeps a lazy image's real source and an ordered list's start", () => {
    expect(
      slimmed('<ol start="3"><li><img src="data:image/gif;base64,R0l" data-src="/a.png" alt="A"></li></ol>'),
    ).toBe('<ol start="3"><li><img src="/a.png" alt="A"></li></ol>')
  })
})

describe("slimHtml: sections", () => {
  const text = (n: number) => `<p>Paragraph ${n} ${"words ".repeat(20)}</p>`

  it("is one section while the page is under the size", () => {
    expect(slim(`<div>${text(1)}${text(2)}</div>`).sections).toHaveLength(1)
  })

  it("cuts before a block once a section is full, closing and reopening the containers around it", () => {
    const { sections } = slim(`<main><article>${text(1)}${text(2)}${text(3)}</article></main>`, 100)
    expect(sections.map((section) => section.html)).toEqual([
      `<main><article>${slimmed(text(1))}</article></main>`,
      `<main><article>${slimmed(text(2))}</article></main>`,
      `<main><article>${slimmed(text(3))}</article></main>`,
    ])
    expect(sections.map((section) => section.separator)).toEqual(["\n\n", "\n\n", "\n\n"])
  })

  it("never cuts inside a paragraph, list item, table cell, quote or <pre>", () => {
    const long = "word ".repeat(100)
    const html = `<div><p>${long}<b>${long}</b></p><ul><li><p>${long}</p><p>${long}</p></li></ul><table><tr><td><p>${long}</p><p>${long}</p></td></tr></table><blockquote><p>${long}</p><p>${long}</p></blockquote><pre>${long}\n${long}</pre></div>`
    const { sections } = slim(html, 10)
    expect(sections.map((section) => section.html.slice(0, 12))).toEqual([
      "<div><p>word",
      "<div><ul><li",
      "<div><table>",
      "<div><blockq",
      "<div><pre>\nw",
    ])
  })

  it("continues an ordered list's numbering and joins the items with a line break", () => {
    const { sections } = slim(`<ol start="5"><li>${"a ".repeat(30)}</li><li>b</li><li>c</li></ol>`, 40)
    expect(sections.map((section) => section.html)).toEqual([
      `<ol start="5"><li>${"a ".repeat(30).trimEnd()} </li></ol>`,
      '<ol start="6"><li>b</li><li>c</li></ol>',
    ])
    expect(sections[1]!.separator).toBe("\n")
  })

  it("joins a list's items with a blank line when the item before the cut ends with a block", () => {
    const { sections } = slim(`<ul><li><p>${"a ".repeat(30)}</p></li><li>b</li></ul>`, 40)
    expect(sections[1]).toEqual({ html: "<ul><li>b</li></ul>", separator: "\n\n" })
  })

  it("continues a table's rows under a table marked data-continued, so no row becomes a second header", () => {
    const rows = Array.from({ length: 3 }, (_, index) => `<tr><td>row ${index} ${"x".repeat(40)}</td></tr>`)
    const { sections } = slim(
      `<table><thead><tr><th>Head ${"x".repeat(40)}</th></tr></thead><tbody>${rows.join("")}</tbody></table>`,
      40,
    )
    expect(sections.map((section) => section.html.replace(/x+/g, "x"))).toEqual([
      "<table><thead><tr><th>Head x</th></tr></thead><tbody></tbody></table>",
      '<table data-continued=""><tbody><tr><td>row 0 x</td></tr></tbody></table>',
      '<table data-continued=""><tbody><tr><td>row 1 x</td></tr></tbody></table>',
      '<table data-continued=""><tbody><tr><td>row 2 x</td></tr></tbody></table>',
    ])
    expect(sections.slice(1).map((section) => section.separator)).toEqual(["\n", "\n", "\n"])
  })
})
