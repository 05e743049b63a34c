// Symbols as a model reads them: a file's outline indented by nesting, a workspace search as one
// located line per symbol.
import type { DocumentSymbol, Range, SymbolInformation, WorkspaceSymbol } from "vscode-languageserver-types"
import type { SourceText } from "./source-text.ts"
import { symbolKind } from "./symbol-kind.ts"

/**
 * A file's symbols, one per line, children indented under their parent: `class Square (lines 9-14)`.
 * Flat answers (SymbolInformation) are listed in file order with their container.
 */
export function formatOutline(symbols: readonly (DocumentSymbol | SymbolInformation)[]): string {
  const lines: string[] = []
  const walk = (list: readonly DocumentSymbol[], depth: number) => {
    for (const symbol of [...list].sort((a, b) => a.range.start.line - b.range.start.line)) {
      const detail = symbol.detail ? ` ${symbol.detail}` : ""
      lines.push(
        `${"  ".repeat(depth)}${symbolKind(symbol.kind)} ${symbol.name}${detail} (${span(symbol.range)})`,
      )
      walk(symbol.children ?? [], depth + 1)
    }
  }
  const hierarchical = symbols.filter((symbol): symbol is DocumentSymbol => "range" in symbol)
  walk(hierarchical, 0)
  const flat = symbols
    .filter((symbol): symbol is SymbolInformation => "location" in symbol)
    .sort((a, b) => a.location.range.start.line - b.location.range.start.line)
  for (const symbol of flat) {
    const container = symbol.containerName ? `, in ${symbol.containerName}` : ""
    lines.push(`${symbolKind(symbol.kind)} ${symbol.name} (${span(symbol.location.range)}${container})`)
  }
  return lines.join("\n")
}

/** Symbols found across the workspace, each with where it is: `function add — src/math.ts:1:17: export …`. */
export async function formatWorkspaceSymbols(
  symbols: readonly (SymbolInformation | WorkspaceSymbol)[],
  source: SourceText,
): Promise<string> {
  const lines: string[] = []
  for (const symbol of symbols) {
    const container = symbol.containerName ? ` (in ${symbol.containerName})` : ""
    const where =
      "range" in symbol.location
        ? await source.located(symbol.location.uri, symbol.location.range.start)
        : source.show(symbol.location.uri)
    lines.push(`${symbolKind(symbol.kind)} ${symbol.name}${container} — ${where}`)
  }
  return lines.join("\n")
}

/** `line 3` or `lines 3-9`, 1-based. */
function span(range: Range): string {
  const start = range.start.line + 1
  const end = range.end.line + 1
  return end > start ? `lines ${start}-${end}` : `line ${start}`
}
