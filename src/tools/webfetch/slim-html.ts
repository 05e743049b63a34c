import { Parser } from "htmlparser2"
import {
  BLOCK_ELEMENTS,
  DROPPED_ELEMENTS,
  escapeText,
  keptAttributes,
  METADATA_ELEMENTS,
  ownLanguage,
  serialize,
  VOID_ELEMENTS,
  wrapperLanguage,
} from "./markup-filter.ts"
import { depthCounter, MAX_WRITTEN_DEPTH } from "./nesting.ts"

/**
 * How much slimmed markup a section holds before it is cut at the next place where cutting does not
 * change the markdown. A section becomes one DOM at a time, so this bounds the DOM's size.
 */
export const SECTION_CHARS = 64 * 1024

/** One piece of the page, converted on its own. */
export interface Section {
  readonly html: string
  /** What joins this section's markdown to the previous section's: a line break inside a list or table. */
  readonly separator: "\n" | "\n\n"
}

/** A page reduced to what the markdown rules read. */
export interface SlimPage {
  /** The text of the page's first `<title>`, blank space collapsed; "" when it has none. */
  readonly title: string
  /** The first `<base href>`, as written. */
  readonly baseHref: string | undefined
}

// Elements whose markdown is their children's between blank lines: a page may be cut among their children.
const CONTAINERS = new Set([
  "html",
  "head",
  "body",
  "address",
  "article",
  "aside",
  "center",
  "dd",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figure",
  "footer",
  "form",
  "header",
  "main",
  "nav",
  "section",
])

// Where a cut may come inside a container: before a block that is not part of a list or table.
const CUT_BEFORE = new Set(
  [...BLOCK_ELEMENTS].filter((name) => !["li", "tbody", "td", "tfoot", "th", "thead", "tr"].includes(name)),
)

// The converter's root stands in for these; their tags are not written.
const ROOTS = new Set(["html", "head", "body"])

const DROPPED = new Set<string>([...DROPPED_ELEMENTS, ...METADATA_ELEMENTS, "frameset", "frame"])

/** An element open at the parser's position, as the slimmed markup has it. */
interface Open {
  readonly name: string
  /** Its start tag as written ("" for html, head and body). */
  readonly tag: string
  /** How a cut inside it is made: among a container's blocks, a list's items, a table's rows. */
  readonly role: "container" | "list" | "table" | "rows" | "other"
  /** The code language it names for a `<pre>` inside it. */
  readonly language: string | undefined
  /** An ordered list's first number. */
  readonly start: number | undefined
  /** Element children written so far (a list item's number follows from it), and a table's rows. */
  children: number
  rows: number
  /** Whether its content so far ends with a block, so its markdown ends with a line break. */
  endsInBlock: boolean
  /** A list's last item ended with a block: the items are separated by a blank line. */
  looseItems: boolean
}

/** A `<pre>` being read: only its text and line breaks reach the markdown. */
interface Preformatted {
  text: string
  language: string | undefined
  depth: number
}

/**
 * Streams a page through htmlparser2 and writes back only what the markdown rules read, in sections
 * of about `sectionChars` (SECTION_CHARS) characters handed to `onSection` as each is cut (with what
 * is known of the page so far), so the slimmed page is never held whole:
 * 1. Dropped with their content: scripts, styles, noscript, frames, objects, templates, SVG and the
 *    metadata elements; the first `<title>` and `<base href>` are kept aside. Comments and doctypes go.
 * 2. Attributes: only those the rules read (keptAttributes); text is re-escaped, runs of blank space
 *    outside `<pre>` become one space (turndown collapses them the same way).
 * 3. A `<pre>` becomes its text alone, `<br>` as a line break, with the language its classes, its
 *    `<code>`'s or its wrapper's name as `class="language-*"` (highlighted code is mostly spans).
 * 4. When a section is full, it is cut before the next block whose ancestors are all containers, list
 *    or table bodies: the open elements are closed, then reopened in the next section (an ordered list
 *    with the number it had reached, a table marked `data-continued` so its next row is no header).
 * 5. Nesting: past MAX_WRITTEN_DEPTH open elements, further elements are not written (their text is),
 *    and a page nesting past MAX_PARSE_DEPTH throws NestedTooDeep (nesting.ts), so the work stays
 *    linear in the page and the DOM of a section shallow.
 */
export function slimHtml(
  html: string,
  onSection: (section: Section, page: SlimPage) => void,
  sectionChars = SECTION_CHARS,
): SlimPage {
  const stack: Open[] = []
  let parts: string[] = []
  let written = 0
  let separator: Section["separator"] = "\n\n"
  let dropping = 0
  let pre: Preformatted | undefined
  // The newline right after <pre>, <textarea> or <listing> is not content (the HTML parser drops it).
  let dropNewline = false
  let title: string | undefined
  let readingTitle = false
  let baseHref: string | undefined
  const depth = depthCounter()
  // Elements open beyond MAX_WRITTEN_DEPTH: always the innermost, so closes reach them first.
  let flattened = 0

  const write = (markup: string) => {
    parts.push(markup)
    written += markup.length
  }

  const cut = () => {
    for (let index = stack.length - 1; index >= 0; index--) {
      const open = stack[index]!
      if (open.tag) parts.push(`</${open.name}>`)
    }
    onSection({ html: parts.join(""), separator }, facts())
    separator = seamAfter(stack)
    parts = stack.map(reopened)
    written = 0
  }

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        depth.open()
        if (dropping > 0 || DROPPED.has(name)) {
          // Only a <title> or <base> of the page itself: an SVG has titles too.
          if (dropping++ > 0) return
          if (name === "title" && title === undefined) readingTitle = true
          if (name === "base" && baseHref === undefined && attribs.href !== undefined) baseHref = attribs.href
          return
        }
        dropNewline = name === "textarea" || name === "listing"
        if (pre) {
          if (name === "br") pre.text += "\n"
          if (name === "code") pre.language ??= ownLanguage(attribs)
          if (name === "pre") pre.depth++
          return
        }
        if (stack.length >= MAX_WRITTEN_DEPTH && name !== "pre") {
          flattened++
          return
        }
        const parent = stack.at(-1)
        if (written >= sectionChars && canCutBefore(name, stack)) cut()
        if (name === "pre") {
          pre = { text: "", language: ownLanguage(attribs) ?? nearLanguage(stack), depth: 1 }
          dropNewline = true
          return
        }
        if (parent) parent.children++
        if (name === "tr") {
          const table = stack.findLast((open) => open.role === "table")
          if (table) table.rows++
        }
        const tag = ROOTS.has(name) ? "" : `<${name}${keptAttributes(name, attribs)}>`
        write(tag)
        stack.push({
          name,
          tag,
          role: roleOf(name),
          language: wrapperLanguage(attribs),
          start: name === "ol" ? (attribs.start === undefined ? 1 : Number(attribs.start)) : undefined,
          children: 0,
          rows: 0,
          endsInBlock: false,
          looseItems: false,
        })
      },

      ontext(raw) {
        if (dropping > 0) {
          if (readingTitle) title = (title ?? "") + raw
          return
        }
        const text = dropNewline ? raw.replace(/^(?:\r\n|\r|\n)/, "") : raw
        dropNewline = false
        if (pre) {
          pre.text += text
          return
        }
        write(escapeText(text.replace(/[ \r\n\t]+/g, " ")))
        const top = stack.at(-1)
        if (top && /[^ \r\n\t]/.test(text)) top.endsInBlock = false
      },

      onclosetag(name) {
        depth.close()
        if (dropping > 0) {
          dropping--
          if (dropping === 0 && readingTitle) {
            readingTitle = false
            title ??= ""
          }
          return
        }
        dropNewline = false
        if (pre) {
          if (name === "pre" && --pre.depth === 0) {
            const language = pre.language ? serialize({ class: `language-${pre.language}` }) : ""
            write(`<pre${language}>\n${escapeText(pre.text)}</pre>`)
            pre = undefined
            const parent = stack.at(-1)
            if (parent) {
              parent.children++
              parent.endsInBlock = true
            }
          }
          return
        }
        if (flattened > 0) {
          flattened--
          return
        }
        const open = stack.pop()
        if (!open) return
        if (open.tag && !VOID_ELEMENTS.has(name)) write(`</${name}>`)
        const parent = stack.at(-1)
        if (!parent) return
        parent.endsInBlock = name === "br" || (BLOCK_ELEMENTS.has(name) && name !== "ul" && name !== "ol")
        if (name === "li") parent.looseItems = open.endsInBlock
      },
    },
    { decodeEntities: true },
  )
  const facts = (): SlimPage => ({ title: (title ?? "").replace(/\s+/g, " ").trim(), baseHref })
  parser.write(html)
  parser.end()
  onSection({ html: parts.join(""), separator }, facts())
  return facts()
}

function roleOf(name: string): Open["role"] {
  if (CONTAINERS.has(name)) return "container"
  if (name === "ul" || name === "ol") return "list"
  if (name === "table") return "table"
  if (name === "tbody" || name === "tfoot") return "rows"
  return "other"
}

/** Whether the page can be cut right before an element `name` opening inside `stack`. */
function canCutBefore(name: string, stack: readonly Open[]): boolean {
  if (stack.some((open) => open.role === "other")) return false
  const role = stack.at(-1)?.role ?? "container"
  if (role === "container") return CUT_BEFORE.has(name)
  if (role === "list") return name === "li"
  return name === "tr"
}

/** How the markdown of the part after a cut joins the part before it. */
function seamAfter(stack: readonly Open[]): Section["separator"] {
  const top = stack.at(-1)
  if (top?.role === "list" && top.children > 0) return top.looseItems ? "\n\n" : "\n"
  if (top?.role === "table" || top?.role === "rows") {
    const table = stack.findLast((open) => open.role === "table")
    if (table && table.rows > 0) return "\n"
  }
  return "\n\n"
}

/** An element's start tag at the top of the next section, carrying on where the last one stopped. */
function reopened(open: Open): string {
  if (open.name === "ol") return `<ol${serialize({ start: String(open.start! + open.children) })}>`
  if (open.role === "table" && open.rows > 0) return `<table data-continued="">`
  return open.tag
}

/** The code language named by the `<pre>`'s parent or grandparent (highlighters' wrappers). */
function nearLanguage(stack: readonly Open[]): string | undefined {
  return stack.at(-1)?.language ?? stack.at(-2)?.language
}
