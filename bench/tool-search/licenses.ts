// The licences of the tool-search corpus: which licence a package is under, and LICENSES.md, which
// names each server's package, version, licence and repository with the licence notice it ships. A
// package that ships no licence file gets its package.json's author as the copyright holder and the
// standard terms of its licence, given once at the end of the file, as Apache-2.0's are.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { PackageEntry, ServerFile } from "./collect.ts"

const MIT_TERMS = `Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the
following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial
portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT
LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO
EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER
IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR
THE USE OR OTHER DEALINGS IN THE SOFTWARE.`

const ISC_TERMS = `Permission to use, copy, modify, and/or distribute this software for any purpose with or without fee
is hereby granted, provided that the above copyright notice and this permission notice appear in all
copies.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE
INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF
USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT
OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.`

/** The package's declared licence; when package.json names none, what its LICENSE file plainly is. */
export function licenseOf(meta: Record<string, any>, packageDir: string): string {
  const raw = meta.license ?? meta.licenses?.[0]
  const declared = typeof raw === "string" ? raw : raw?.type
  if (typeof declared === "string" && !/^SEE LICEN[CS]E/i.test(declared)) return declared
  const text = licenseText(packageDir) ?? ""
  if (/^\s*(The )?MIT License/i.test(text)) return "MIT"
  if (/Apache License\s+Version 2\.0/i.test(text)) return "Apache-2.0"
  return String(declared ?? "UNKNOWN")
}

/**
 * Writes LICENSES.md for the servers written. `packageDir` gives where each entry's package is installed
 * (its package.json and licence file are read from there).
 */
export function writeLicenses(
  fixtures: string,
  entries: readonly PackageEntry[],
  packageDir: (entry: PackageEntry) => string,
): void {
  const lines = [
    "# Licences of the tool-search corpus",
    "",
    "The files in `servers/` hold the tool definitions (names, descriptions, input schemas) that these",
    "public MCP servers, installed from npm, listed over MCP `tools/list`. Each is redistributed under its",
    "package's licence: the notice the package ships is reproduced below; where it ships none, its",
    "package.json's author is the copyright holder and the licence's standard terms (at the end) apply.",
    "Written by `bench/tool-search/collect.ts`; do not edit by hand.",
    "",
  ]
  const standard = new Set<string>()
  let apache: string | undefined
  for (const entry of [...entries].sort((a, b) => a.server.localeCompare(b.server))) {
    const file = JSON.parse(
      readFileSync(join(fixtures, "servers", `${entry.server}.json`), "utf8"),
    ) as ServerFile
    const dir = packageDir(entry)
    lines.push(`## ${file.server}: ${file.package}@${file.version}`, "")
    lines.push(`- Licence: ${file.license}`, `- Repository: ${file.repository || "(none given)"}`, "")
    const text = licenseText(dir)
    if (text && /Apache License\s+Version 2\.0/i.test(text)) {
      // Apache-2.0's terms are the same for all; each package's own notice is its copyright line.
      if (/TERMS AND CONDITIONS/.test(text)) apache ??= text.split(/APPENDIX: How to apply/i)[0]!.trim()
      const copyright = text.match(/^\s*Copyright (?!\[yyyy\]|\{yyyy\}).*$/im)?.[0]?.trim()
      lines.push("```text", `${copyright ? `${copyright}\n\n` : ""}${APACHE_NOTICE}`, "```", "")
    } else if (text) {
      lines.push("```text", text.replaceAll("```", "'''"), "```", "")
    } else {
      const author = authorOf(dir)
      standard.add(file.license)
      lines.push(
        `The package ships no licence file. Copyright ${author ?? "its authors"}; the ${file.license} terms at the end of this file apply.`,
        "",
      )
    }
  }
  if (standard.has("MIT")) lines.push("## The MIT License terms", "", "```text", MIT_TERMS, "```", "")
  if (standard.has("ISC")) lines.push("## The ISC License terms", "", "```text", ISC_TERMS, "```", "")
  if (apache) lines.push("## The Apache License, Version 2.0", "", "```text", apache, "```", "")
  writeFileSync(join(fixtures, "LICENSES.md"), `${lines.join("\n").trimEnd()}\n`)
}

const APACHE_NOTICE =
  "Licensed under the Apache License, Version 2.0 (the terms are at the end of this file; also\nhttp://www.apache.org/licenses/LICENSE-2.0)."

/** The text of the licence file a package ships, if any. */
function licenseText(packageDir: string): string | undefined {
  if (!existsSync(packageDir)) return undefined
  const name = readdirSync(packageDir).find((file) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(file))
  if (!name) return undefined
  return readFileSync(join(packageDir, name), "utf8").replace(/\r\n/g, "\n").trim()
}

function authorOf(packageDir: string): string | undefined {
  const meta = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { author?: unknown }
  const author = meta.author
  if (typeof author === "string") return author.replace(/\s*[<(].*$/, "") || undefined
  if (author && typeof author === "object" && "name" in author) return String(author.name)
  return undefined
}
