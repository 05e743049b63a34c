import type TurndownService from "turndown"
import type { Section, SlimPage } from "./slim-html.ts"

/** The part of a DOM element the rules read (the project's TypeScript has no DOM library). */
interface Attributes {
  getAttribute(name: string): string | null
}

interface Element extends Attributes {
  readonly nodeName: string
  readonly textContent: string | null
  readonly children: ArrayLike<Element>
  readonly parentNode: Element | null
  readonly previousElementSibling: Element | null
}

interface Converter {
  readonly turndown: TurndownService
  readonly slimHtml: (
    html: string,
    onSection: (section: Section, page: SlimPage) => void,
    sectionChars?: number,
  ) => SlimPage
}

let converter: Promise<Converter> | undefined
// The page being converted: turndown runs synchronously, one page at a time, so its rules read this.
let pageBase: URL | undefined

/**
 * HTML to markdown with turndown (ATX headings, fenced code, `-` bullets); `sectionChars` sizes the
 * sections (slim-html.ts's SECTION_CHARS when not given):
 * 1. Slim the page while streaming it (slim-html.ts): scripts, styles, SVG, frames, metadata and the
 *    attributes no rule reads go before any DOM is built, and a long page comes in sections of a
 *    bounded size, so memory follows the section, not the page (a DOM costs tens of bytes per byte of
 *    markup, turndown's work on it as much again).
 * 2. Convert each section with turndown; link and image targets are made absolute against the page's
 *    `<base href>`, else its final URL, so a link the model follows leads where the page meant.
 * 3. Join the sections' markdown (a line break inside a list or table, else a blank line), after the
 *    page's `<title>` when there is any content.
 */
export async function htmlToMarkdown(html: string, pageUrl: URL, sectionChars?: number): Promise<string> {
  const { turndown, slimHtml } = await loadConverter()
  const parts: string[] = []
  let separator = ""
  try {
    const { title } = slimHtml(
      html,
      (section, page) => {
        pageBase = baseOf(page.baseHref, pageUrl)
        // A section with no markdown leaves the wider of the two seams around it.
        if (separator !== "\n\n") separator = section.separator
        const markdown = turndown.turndown(section.html).trim()
        if (!markdown) return
        if (parts.length > 0) parts.push(separator)
        parts.push(markdown)
        separator = ""
      },
      sectionChars,
    )
    if (parts.length === 0) return ""
    return title ? `${title}\n\n${parts.join("")}` : parts.join("")
  } finally {
    pageBase = undefined
  }
}

function loadConverter(): Promise<Converter> {
  // Loaded on first use: turndown and its DOM cost ~35 ms to import.
  converter ??= Promise.all([import("turndown"), import("./slim-html.ts")]).then(
    ([{ default: Turndown }, { slimHtml }]) => {
      const turndown = new Turndown({
        headingStyle: "atx",
        hr: "---",
        bulletListMarker: "-",
        codeBlockStyle: "fenced",
        emDelimiter: "*",
      })
      turndown.addRule("absoluteLink", {
        filter: (node) => node.nodeName === "A" && Boolean(node.getAttribute("href")),
        replacement: (content, node) => {
          // Anchors with nothing to read (a heading's `#` link, an icon) are noise for a model.
          if (!content.replace(/[\s\u200b]/g, "")) return ""
          const element = node as unknown as Attributes
          const href = absolute(element.getAttribute("href")!)
          if (!href) return content
          return `[${content}](${escapeTarget(href)}${titlePart(element.getAttribute("title"))})`
        },
      })
      turndown.addRule("absoluteImage", {
        filter: "img",
        replacement: (_content, node) => {
          const element = node as unknown as Attributes
          const raw = element.getAttribute("src")
          const src = raw ? absolute(raw) : undefined
          if (!src) return ""
          const alt = (element.getAttribute("alt") ?? "").replace(/\s*\n\s*/g, " ")
          return `![${alt}](${escapeTarget(src)}${titlePart(element.getAttribute("title"))})`
        },
      })
      turndown.addRule("codeBlock", {
        filter: (node) => node.nodeName === "PRE",
        replacement: (_content, node) => fence(node as unknown as Element),
      })
      turndown.addRule("tableCell", {
        filter: ["th", "td"],
        replacement: (content, node) => {
          const first = (node as unknown as Element).previousElementSibling === null
          const cell = content
            .replace(/\s*\n+\s*/g, " ")
            .replace(/\|/g, "\\|")
            .trim()
          return `${first ? "| " : " "}${cell} |`
        },
      })
      turndown.addRule("tableRow", {
        filter: "tr",
        replacement: (content, node) => {
          const row = node as unknown as Element
          if (!isFirstRow(row)) return `\n${content}`
          const separator = Array.from({ length: row.children.length }, () => " --- |").join("")
          return `\n${content}\n|${separator}`
        },
      })
      turndown.addRule("tableSection", {
        filter: ["thead", "tbody", "tfoot"],
        replacement: (content) => content,
      })
      turndown.addRule("table", {
        filter: "table",
        replacement: (content) => `\n\n${content.replace(/\n{2,}/g, "\n").trim()}\n\n`,
      })
      return { turndown, slimHtml }
    },
  )
  return converter
}

/** The URL relative links resolve against: the page's `<base href>`, else the page's own URL. */
export function baseOf(baseHref: string | undefined, pageUrl: URL): URL {
  if (!baseHref) return pageUrl
  try {
    return new URL(baseHref, pageUrl)
  } catch {
    return pageUrl
  }
}

/** An absolute http(s), mailto or fragment target; undefined for `javascript:` and the like. */
function absolute(href: string): string | undefined {
  const raw = href.trim()
  if (raw.startsWith("#")) return raw
  try {
    const url = new URL(raw, pageBase)
    return ["http:", "https:", "mailto:", "ftp:"].includes(url.protocol) ? url.href : undefined
  } catch {
    return raw
  }
}

function escapeTarget(target: string): string {
  return target.replace(/([()])/g, "\\$1")
}

function titlePart(title: string | null): string {
  return title ? ` "${title.replace(/"/g, '\\"').replace(/\s*\n\s*/g, " ")}"` : ""
}

/**
 * A `<pre>` as a fenced block: its text (the slimmed page has `<br>` as line breaks already), the
 * language from its `language-*` class, and a fence longer than any run of backticks inside.
 */
function fence(pre: Element): string {
  const code = (pre.textContent ?? "").replace(/\n$/, "")
  const language = /(?:^|\s)language-([\w+#.-]+)/.exec(pre.getAttribute("class") ?? "")?.[1] ?? ""
  // A loop, not Math.max(...runs): a long listing can hold more runs than a call takes arguments.
  let longest = 2
  for (const run of code.matchAll(/`+/g)) longest = Math.max(longest, run[0].length)
  const marks = "`".repeat(longest + 1)
  return `\n\n${marks}${language}\n${code}\n${marks}\n\n`
}

/** The first row of its table: it becomes the markdown table's header (not in a table's continuation). */
function isFirstRow(row: Element): boolean {
  const section = row.parentNode
  if (row.previousElementSibling !== null || !section) return false
  const table = section.nodeName === "TABLE" ? section : section.parentNode
  if (table && table.getAttribute("data-continued") !== null) return false
  if (section.nodeName === "TABLE" || section.nodeName === "THEAD") return true
  // The first row of the first section (a table without <thead> starts with <tbody>).
  return section.previousElementSibling === null || section.previousElementSibling.nodeName === "CAPTION"
}
