import type { Dirent } from "node:fs"
import { readdir } from "node:fs/promises"
import { join } from "node:path"

/** Folders that are never a skill's own material. */
const SKIPPED = new Set([".git", "node_modules"])

/**
 * Up to `limit` files under `dir`, breadth first and sorted by name at each level: hidden files
 * included, symbolic links not followed (neither listed nor entered), `skip` left out. `more` says
 * whether files were left out for the limit.
 */
export async function sampleFiles(
  dir: string,
  options: { limit: number; skip?: string },
): Promise<{ files: string[]; more: boolean }> {
  const files: string[] = []
  const queue = [dir]
  while (queue.length) {
    const current = queue.shift()!
    let entries: Dirent[]
    try {
      entries = await readdir(current, { withFileTypes: true })
    } catch {
      continue // removed meanwhile, or unreadable
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      const path = join(current, entry.name)
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) queue.push(path)
      } else if (entry.isFile() && path !== options.skip) {
        if (files.length === options.limit) return { files, more: true }
        files.push(path)
      }
    }
  }
  return { files, more: false }
}
