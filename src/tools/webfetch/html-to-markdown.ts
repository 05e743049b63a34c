import type TurndownService from "turndown"

/** Elements whose content is never part of a page's text. */
export const DROPPED_ELEMENTS = [
  "script",
  "style",
  "noscript",
  "iframe",
  "object",
  "embed",
  "template",
] as const

/** The part of a DOM element the rules read (the project's TypeScript has no DOM library). */
interface Attributes {
  getAttribute(name: string): string | null
}

interface Element extends Attributes {
  readonly nodeName: string
  readonly nodeType: number
  readonly nodeValue: string | null
  readonly childNodes: ArrayLike<Element>
  readonly children: ArrayLike<Element>
  readonly parentNode: Element | null
  readonly previousElementSibling: Element | null
  querySelector(selector: string): Element | null
}

let converter: Promise<TurndownService> | undefined
// The page being converted: turndown runs synchronously, one page at a time, so its rules read this.
let pageBase: URL | undefined

/**
 * HTML to markdown with turndown (ATX headings, fenced code, `-` bullets): scripts, styles, frames and
 * metadata dropped; link and image targets made absolute against the page's `<base href>`, else its
 * final URL, so a link the model follows leads where the page meant.
 */
export async function htmlToMarkdown(html: string, pageUrl: URL): Promise<string> {
  const turndown = await loadConverter()
  pageBase = baseOf(html, pageUrl)
  try {
    return turndown.turndown(html).trim()
  } finally {
    pageBase = undefined
  }
}

function loadConverter(): Promise<TurndownService> {
  // Loaded on first use: turndown and its DOM cost ~35 ms to import.
  converter ??= import("turndown").then(({ default: Turndown }) => {
    const turndown = new Turndown({
      headingStyle: "atx",
      hr: "---",
      bulletListMarker: "-",
      codeBlockStyle: "fenced",
      emDelimiter: "*",
    })
    turndown.remove([...DROPPED_ELEMENTS, "meta", "link", "head" as never])
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
        const src = absolute(element.getAttribute("src") ?? "")
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
    return turndown
  })
  return converter
}

/** The URL relative links resolve against: the page's `<base href>`, else the page's own URL. */
export function baseOf(html: string, pageUrl: URL): URL {
  const match = /<base\b[^>]*\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(html.slice(0, 65_536))
  const href = match ? (match[1] ?? match[2] ?? match[3]) : undefined
  if (!href) return pageUrl
  try {
    return new URL(href, pageUrl)
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
 * A `<pre>` as a fenced block: its text with `<br>` as line breaks (highlighters emit them), the
 * language from a `language-*` class, and a fence longer than any run of backticks inside.
 */
function fence(pre: Element): string {
  const code = textWithBreaks(pre).replace(/\n$/, "")
  const classes = `${pre.getAttribute("class") ?? ""} ${pre.querySelector("code")?.getAttribute("class") ?? ""}`
  const language = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(classes)?.[1] ?? ""
  const longest = Math.max(2, ...Array.from(code.matchAll(/`+/g), (run) => run[0].length))
  const marks = "`".repeat(longest + 1)
  return `\n\n${marks}${language}\n${code}\n${marks}\n\n`
}

function textWithBreaks(node: Element): string {
  if (node.nodeType === 3) return node.nodeValue ?? ""
  if (node.nodeName === "BR") return "\n"
  let text = ""
  for (let index = 0; index < node.childNodes.length; index++) text += textWithBreaks(node.childNodes[index]!)
  return text
}

/** The first row of its table: it becomes the markdown table's header. */
function isFirstRow(row: Element): boolean {
  const section = row.parentNode
  if (row.previousElementSibling !== null || !section) return false
  if (section.nodeName === "TABLE" || section.nodeName === "THEAD") return true
  // The first row of the first section (a table without <thead> starts with <tbody>).
  return section.previousElementSibling === null || section.previousElementSibling.nodeName === "CAPTION"
}
