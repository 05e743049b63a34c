// One operation's answers as text: locations with their source line, hovers, outlines, symbols, and
// call hierarchies as trees. Empty text: nothing was found.
import type { CallHierarchyItem, Location } from "vscode-languageserver-types"
import { formatHover } from "./format-hover.ts"
import { formatOutline, formatWorkspaceSymbols } from "./format-symbols.ts"
import type { Answer, CallTree } from "./operations.ts"
import type { SourceText } from "./source-text.ts"
import { symbolKind } from "./symbol-kind.ts"

/** The answers of every server that gave one, formatted together (the same location once). */
export async function formatAnswers(answers: readonly Answer[], source: SourceText): Promise<string> {
  const parts: string[] = []
  const locations = answers.flatMap((answer) => (answer.kind === "locations" ? answer.locations : []))
  if (locations.length) parts.push(await formatLocations(locations, source))
  for (const answer of answers) {
    if (answer.kind === "hover") parts.push(formatHover(answer.hovers))
    if (answer.kind === "outline") parts.push(formatOutline(answer.symbols))
    if (answer.kind === "symbols") parts.push(await formatWorkspaceSymbols(answer.symbols, source))
    if (answer.kind === "items") parts.push(await formatItems(answer.items, source))
    if (answer.kind === "calls") parts.push(await formatCalls(answer.direction, answer.trees, source))
  }
  return parts.filter((part) => part !== "").join("\n\n")
}

/** `path:line:col: source line`, one per location, sorted by file and position, duplicates dropped. */
export async function formatLocations(locations: readonly Location[], source: SourceText): Promise<string> {
  const unique = new Map<string, Location>()
  for (const location of locations) {
    const { line, character } = location.range.start
    unique.set(`${location.uri}\0${line}\0${character}`, location)
  }
  const sorted = [...unique.values()].sort(
    (a, b) =>
      source.show(a.uri).localeCompare(source.show(b.uri)) ||
      a.range.start.line - b.range.start.line ||
      a.range.start.character - b.range.start.character,
  )
  const lines = await Promise.all(
    sorted.map((location) => source.located(location.uri, location.range.start)),
  )
  return lines.join("\n")
}

async function formatItems(items: readonly CallHierarchyItem[], source: SourceText): Promise<string> {
  const lines = await Promise.all(items.map((item) => describeItem(item, source)))
  return lines.join("\n")
}

/**
 * Each item, then what calls it (`←`, incoming) or what it calls (`→`, outgoing), each call with the lines
 * where the call is made:
 *   function add — src/math.ts:1:17
 *     ← function total — src/main.ts:3:17
 *         src/main.ts:4:10: return add(1, 2) + add(3, 4)
 */
async function formatCalls(
  direction: "incoming" | "outgoing",
  trees: readonly CallTree[],
  source: SourceText,
): Promise<string> {
  const arrow = direction === "incoming" ? "←" : "→"
  const blocks: string[] = []
  for (const tree of trees) {
    const lines = [await describeItem(tree.item, source)]
    if (tree.calls.length === 0)
      lines.push(`  ${arrow} (${direction === "incoming" ? "no callers" : "no calls"} found)`)
    for (const call of tree.calls) {
      lines.push(`  ${arrow} ${await describeItem(call.item, source)}`)
      // Incoming: the calls are in the caller's file; outgoing: in the item's own.
      const file = direction === "incoming" ? call.item.uri : tree.item.uri
      for (const range of call.ranges) lines.push(`      ${await source.located(file, range.start)}`)
    }
    blocks.push(lines.join("\n"))
  }
  return blocks.join("\n\n")
}

async function describeItem(item: CallHierarchyItem, source: SourceText): Promise<string> {
  const detail = item.detail ? ` ${item.detail}` : ""
  return `${symbolKind(item.kind)} ${item.name}${detail} — ${await source.place(item.uri, item.selectionRange.start)}`
}
