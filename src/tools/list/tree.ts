/** One listed path, relative to the listed directory, with forward slashes. */
export interface Entry {
  readonly path: string
  readonly directory: boolean
}

interface Node {
  readonly name: string
  readonly directory: boolean
  readonly children: Map<string, Node>
}

/**
 * An indented tree: `<root>/`, then each level indented two more spaces, directories (with a trailing
 * `/`) before files, each group sorted by name. Parents missing from `entries` are implied by their
 * children's paths.
 */
export function renderTree(root: string, entries: readonly Entry[]): string {
  const top: Node = { name: "", directory: true, children: new Map() }
  for (const entry of entries) {
    const parts = entry.path.split("/").filter((part) => part !== "")
    let node = top
    parts.forEach((part, index) => {
      const last = index === parts.length - 1
      let child = node.children.get(part)
      if (!child) {
        child = { name: part, directory: !last || entry.directory, children: new Map() }
        node.children.set(part, child)
      }
      node = child
    })
  }
  const lines = [`${root.endsWith("/") ? root : `${root}/`}`]
  render(top, 1, lines)
  return lines.join("\n")
}

function render(node: Node, depth: number, lines: string[]): void {
  const indent = "  ".repeat(depth)
  for (const child of sortEntries([...node.children.values()])) {
    lines.push(`${indent}${child.name}${child.directory ? "/" : ""}`)
    render(child, depth + 1, lines)
  }
}

/** Directories first, then files; each group by name. */
export function sortEntries<T extends { readonly name: string; readonly directory: boolean }>(
  items: T[],
): T[] {
  return items.sort((a, b) => {
    if (a.directory !== b.directory) return a.directory ? -1 : 1
    return a.name.localeCompare(b.name)
  })
}
