import { describe, expect, it } from "vitest"
import { keptAttributes, ownLanguage, wrapperLanguage } from "./markup-filter.ts"

describe("keptAttributes", () => {
  it.each([
    [
      "a link's href and title, nothing else",
      "a",
      { href: "/x?a=1&b=2", title: 'say "hi"', class: "btn", onclick: "go()", "data-id": "7" },
      ' href="/x?a=1&amp;b=2" title="say &quot;hi&quot;"',
    ],
    [
      "an image's src, alt and title, not its srcset, sizes or classes",
      "img",
      {
        src: "/a.png",
        alt: "A chart",
        title: "Chart",
        srcset: "/a@2x.png 2x",
        class: "w-10",
        loading: "lazy",
      },
      ' src="/a.png" alt="A chart" title="Chart"',
    ],
    [
      "a lazy image's data-src in place of its inline placeholder",
      "img",
      { src: "data:image/gif;base64,R0lGOD", "data-src": "/real.png", alt: "Real" },
      ' src="/real.png" alt="Real"',
    ],
    [
      "a lazy image's data-src when it has no src",
      "img",
      { "data-src": "/real.png", alt: "Real" },
      ' src="/real.png" alt="Real"',
    ],
    [
      "inline image data cut to its scheme (the rules skip it)",
      "img",
      { src: `data:image/png;base64,${"A".repeat(1000)}`, alt: "Inline" },
      ' src="data:" alt="Inline"',
    ],
    ["an ordered list's start", "ol", { start: "4", class: "steps", reversed: "" }, ' start="4"'],
    [
      "no attributes of other elements",
      "div",
      { class: "card", style: "color:red", "aria-label": "Card" },
      "",
    ],
    ["no attributes of a table cell", "td", { colspan: "2", class: "num" }, ""],
  ])("%s", (_what, name, attribs, expected) => {
    expect(keptAttributes(name, attribs)).toBe(expected)
  })
})

describe("code languages", () => {
  it.each([
    [{ class: "language-ts codeBlock_bY9V" }, "ts"],
    [{ class: "hljs lang-python" }, "python"],
    [{ class: "language-c++" }, "c++"],
    [{ class: "chroma" }, undefined],
    [{}, undefined],
  ])("a <pre> or <code> with %j names %s", (attribs, language) => {
    expect(ownLanguage(attribs)).toBe(language)
  })

  it.each([
    ["Docusaurus", { class: "language-ts codeBlockContainer_Ckt0 theme-code-block" }, "ts"],
    ["GitHub", { class: "highlight highlight-source-js notranslate position-relative" }, "js"],
    ["Sphinx", { class: "highlight-python notranslate" }, "python"],
    ["Sphinx's default lexer (no name)", { class: "highlight-default notranslate" }, undefined],
    ["GitHub's text grammars", { class: "highlight highlight-text-html-basic" }, undefined],
    ["a human language on a wrapper", { class: "lang-en content" }, undefined],
    ["a plain wrapper", { class: "highlight" }, undefined],
  ])("a wrapper from %s names %s", (_site, attribs, language) => {
    expect(wrapperLanguage(attribs)).toBe(language)
  })
})
