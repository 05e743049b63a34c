// Makes a module's String.raw templates ASCII for the CLI bundle (scripts/bundle-cli.js).
//
// The bundle is written as ASCII (charset "ascii") because V8 keeps an all-ASCII source one byte per
// character, while a single other character makes it hold, hash and scan the whole file as UTF-16. The
// bundler escapes every string it can, but not the text of a String.raw template: there `\u00d7` would
// be six characters, not "×". So each such character is moved into a substitution, `${"\u00d7"}`, whose
// value String.raw inserts unchanged: the template's value is the same, and its source is ASCII.
// (platform/text/signals.ts has one: `[×●]` in a test runner's failure pattern.)

const NON_ASCII = /[\u0080-\uffff]/

/**
 * The module's code with the non-ASCII characters of its String.raw templates moved into substitutions,
 * or null when it has none. `parse` is the bundler's parser (ESTree with `start`/`end` offsets).
 */
export function asciiRawTemplates(code, parse) {
  if (!NON_ASCII.test(code) || !code.includes("String.raw")) return null
  const edits = []
  walk(parse(code), (node) => {
    if (node.type !== "TaggedTemplateExpression" || !isStringRaw(node.tag)) return
    for (const quasi of node.quasi.quasis) {
      const text = code.slice(quasi.start, quasi.end)
      // Offsets in other units than this string's (a parser counting bytes): leave it as it is.
      if (text !== quasi.value.raw || !NON_ASCII.test(text)) continue
      edits.push({ start: quasi.start, end: quasi.end, text: escapeRaw(text) })
    }
  })
  if (edits.length === 0) return null
  edits.sort((a, b) => b.start - a.start)
  let out = code
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end)
  return out
}

/** `a×b` → `a${"\u00d7"}b` (each UTF-16 unit of a character outside ASCII escaped). */
function escapeRaw(text) {
  return text.replace(/[\u0080-\uffff]+/g, (run) => {
    let escaped = ""
    for (let i = 0; i < run.length; i++) escaped += `\\u${run.charCodeAt(i).toString(16).padStart(4, "0")}`
    return `\${"${escaped}"}`
  })
}

function isStringRaw(tag) {
  return (
    tag.type === "MemberExpression" &&
    !tag.computed &&
    tag.object.type === "Identifier" &&
    tag.object.name === "String" &&
    tag.property.type === "Identifier" &&
    tag.property.name === "raw"
  )
}

/** Depth-first over every node. */
function walk(node, visit) {
  visit(node)
  for (const key in node) {
    if (key === "type" || key === "start" || key === "end") continue
    const value = node[key]
    if (Array.isArray(value)) {
      for (const child of value) if (child && typeof child.type === "string") walk(child, visit)
    } else if (value && typeof value.type === "string") walk(value, visit)
  }
}
