// Hover contents as text: markdown kept as it is, code in fences, the parts one after another.
import type { Hover, MarkedString, MarkupContent } from "vscode-languageserver-types"

/** The text of hovers (several when several servers answered); empty when none said anything. */
export function formatHover(hovers: readonly Hover[]): string {
  return hovers
    .flatMap((hover) => parts(hover.contents))
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .join("\n\n")
}

function parts(contents: Hover["contents"]): string[] {
  if (Array.isArray(contents)) return contents.map(marked)
  if (typeof contents === "object" && "kind" in contents) return [(contents as MarkupContent).value]
  return [marked(contents as MarkedString)]
}

function marked(part: MarkedString): string {
  if (typeof part === "string") return part
  return `\`\`\`${part.language}\n${part.value}\n\`\`\``
}
