// Symbol kinds by their protocol number, as words ("class", "enum member").
import type { SymbolKind } from "vscode-languageserver-types"

const NAMES = [
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum member",
  "struct",
  "event",
  "operator",
  "type parameter",
]

export function symbolKind(kind: SymbolKind): string {
  return NAMES[kind - 1] ?? "symbol"
}
