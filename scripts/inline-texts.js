// Puts the texts the tools read beside their modules (`loadText(import.meta.url, "description.txt")`,
// src/tools/kit/load-text.ts) into the CLI bundle as string literals (scripts/bundle-cli.js). Each was a
// file read at start-up, with a URL made and resolved for it: ~20 of them for `tools` and `mcp`, 2-3 ms
// of a start. The library (dist/ as tsc writes it) still reads them beside its modules, and a text edited
// in src/ is never shadowed: bin/toolbelt.js runs the sources when any source file changed after the build.
import { dirname, join } from "node:path"

/** A call with the module's own URL and a literal file name: what can be read at build time. */
const CALL = /\bloadText\(import\.meta\.url, "([\w.-]+\.txt)"\)/g

/**
 * `code` (the compiled module at `moduleFile`) with each such call replaced by the text it returns (the
 * file's content, trimmed), as a string literal; null when it has none. `read(path)` reads a file.
 */
export function inlineTexts(code, moduleFile, read) {
  if (!code.includes("loadText(")) return null
  let inlined = false
  const out = code.replace(CALL, (_call, name) => {
    inlined = true
    return JSON.stringify(read(join(dirname(moduleFile), name)).trim())
  })
  return inlined ? out : null
}
