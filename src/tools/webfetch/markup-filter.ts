// What of a page's markup the markdown conversion reads: the elements and attributes kept when a
// page is slimmed before it becomes a DOM (slim-html.ts), and the code language hints.

/** Elements whose content is never part of a page's text. */
export const DROPPED_ELEMENTS = [
  "script",
  "style",
  "noscript",
  "iframe",
  "object",
  "embed",
  "template",
  "svg",
] as const

/** Elements that describe the document rather than show anything; `<title>` and `<base>` are read. */
export const METADATA_ELEMENTS = ["meta", "link", "base", "title"] as const

/** The elements turndown treats as blocks: their markdown stands apart, between blank lines. */
export const BLOCK_ELEMENTS = new Set([
  "address",
  "article",
  "aside",
  "audio",
  "blockquote",
  "canvas",
  "center",
  "dd",
  "dir",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "li",
  "main",
  "menu",
  "nav",
  "ol",
  "output",
  "p",
  "pre",
  "section",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
])

/** Elements with no end tag: never closed in the slimmed markup. */
export const VOID_ELEMENTS = new Set([
  "area",
  "base",
  "basefont",
  "br",
  "col",
  "command",
  "embed",
  "frame",
  "hr",
  "img",
  "input",
  "isindex",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
])

/**
 * The attributes the markdown rules read, serialized for a start tag (` name="value"`, escaped):
 * a link's `href` and `title`, an image's `src` (a lazy image's `data-src` when `src` is missing or
 * inline data; inline data itself cut to `data:`, which the rules skip), `alt` and `title`, an
 * ordered list's `start`. Everything else (classes, styles, data and aria attributes) is dropped.
 */
export function keptAttributes(name: string, attribs: Readonly<Record<string, string>>): string {
  if (name === "a") return serialize({ href: attribs.href, title: attribs.title })
  if (name === "img") return serialize({ src: imageSource(attribs), alt: attribs.alt, title: attribs.title })
  if (name === "ol") return serialize({ start: attribs.start })
  return ""
}

function imageSource(attribs: Readonly<Record<string, string>>): string | undefined {
  const src = attribs.src?.trim()
  const lazy = attribs["data-src"]?.trim()
  if ((!src || src.startsWith("data:")) && lazy && !lazy.startsWith("data:")) return lazy
  return src?.startsWith("data:") ? "data:" : src
}

/** ` name="value"` for each attribute with a value, the value escaped for a double-quoted attribute. */
export function serialize(attributes: Readonly<Record<string, string | undefined>>): string {
  let out = ""
  for (const [name, value] of Object.entries(attributes))
    if (value !== undefined) out += ` ${name}="${value.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"`
  return out
}

/** Text escaped for HTML content. */
export function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
}

/** The language a `<pre>` or its `<code>` names in its own classes (`language-ts`, `lang-py`). */
export function ownLanguage(attribs: Readonly<Record<string, string>>): string | undefined {
  return /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(attribs.class ?? "")?.[1]
}

/**
 * The language a code block's wrapper names, as highlighters put it on the element around the
 * `<pre>`: `language-ts` (Docusaurus, MkDocs), `highlight-source-js` (GitHub), `highlight-python`
 * (Sphinx). `lang-*` is not read here: on a wrapper it is as often a human language.
 */
export function wrapperLanguage(attribs: Readonly<Record<string, string>>): string | undefined {
  const classes = attribs.class
  if (!classes) return undefined
  return (
    /(?:^|\s)language-([\w+#.-]+)/.exec(classes)?.[1] ??
    /(?:^|\s)highlight-source-([\w+#.-]+)/.exec(classes)?.[1] ??
    /(?:^|\s)highlight-(?!source-|text-|default(?:\s|$)|none(?:\s|$))([\w+#.-]+)/.exec(classes)?.[1]
  )
}
