// Turns parsed hunks into the exact file changes to write, verifying every one first. Pure: the
// caller supplies a reader; nothing is written here.

import { countLines } from "../kit/file-edit/diff.ts"
import { applyChunks } from "./apply.ts"
import type { FileHunk } from "./parse.ts"

/** One file change to write. A move writes `newContent` to `movePath` and removes `path`. */
export type PlannedChange = {
  type: "add" | "update" | "delete"
  path: string
  movePath?: string
  /** What `path` held before this change ("" for an add). */
  oldContent: string
  /** What the file holds after it ("" for a delete). */
  newContent: string
  additions: number
  deletions: number
  /** Tolerances used while applying (looser matching, re-indentation), worth telling the model. */
  notes: string[]
}

export type PlanResult = { ok: true; changes: PlannedChange[] } | { ok: false; message: string }

/** Reads a file's text; undefined when it does not exist. May throw (a directory, no permission). */
export type ReadFile = (path: string) => string | undefined

/**
 * Plans a whole patch before anything is written.
 *
 * 1. Hunks are taken in patch order against a virtual view of the files: the reader's contents,
 *    overlaid with what earlier hunks of this patch added, changed, moved or deleted. So a patch
 *    may update one file twice, or delete a file and then move another onto its path.
 * 2. `*** Add File` on a path that exists is an error (use Update, or Delete it first).
 *    `*** Update File` and `*** Delete File` of a missing path are errors.
 * 3. An update applies its chunks (see `applyChunks`); `*** Move to` produces a change with
 *    `movePath`. A move onto a path that exists is an error, unlike Codex and opencode, which
 *    overwrite it silently: as with Add, replacing a file takes an explicit `*** Delete File` of
 *    the target earlier in the same patch. A move onto its own path is a plain update.
 * 4. Every hunk is verified; all failures are reported together, and any failure means no changes.
 *
 * Paths are compared as given: resolve them (to absolute paths) before planning so that `a.ts`
 * and `./a.ts` are one file. The changes are in patch order; writing them in order (and restoring
 * `oldContent` in reverse order on failure) gives the planned result.
 */
export function planPatch(hunks: readonly FileHunk[], readFile: ReadFile): PlanResult {
  const overlay = new Map<string, string | undefined>()
  const changes: PlannedChange[] = []
  const errors: string[] = []
  const failed = new Set<string>()

  const read = (path: string): { content: string | undefined } | { error: string } => {
    if (overlay.has(path)) return { content: overlay.get(path) }
    try {
      return { content: readFile(path) }
    } catch (error) {
      return { error: `Failed to read ${path}: ${error instanceof Error ? error.message : String(error)}` }
    }
  }

  for (const hunk of hunks) {
    // A file that already failed would only produce follow-on errors.
    if (failed.has(hunk.path)) continue
    const error = planHunk(hunk)
    if (error) {
      errors.push(error)
      failed.add(hunk.path)
    }
  }
  if (errors.length > 0) return { ok: false, message: errors.join("\n\n") }
  return { ok: true, changes }

  function planHunk(hunk: FileHunk): string | undefined {
    const current = read(hunk.path)
    if ("error" in current) return current.error
    const content = current.content
    const at = `(patch line ${hunk.line})`

    if (hunk.type === "add") {
      if (content !== undefined) {
        return `Add File ${hunk.path} ${at}: the file already exists; use "*** Update File" to change it, or "*** Delete File" it first to replace it`
      }
      overlay.set(hunk.path, hunk.content)
      changes.push({
        type: "add",
        path: hunk.path,
        oldContent: "",
        newContent: hunk.content,
        additions: countLines(hunk.content),
        deletions: 0,
        notes: [],
      })
      return undefined
    }

    if (hunk.type === "delete") {
      if (content === undefined) return `Delete File ${hunk.path} ${at}: file not found`
      overlay.set(hunk.path, undefined)
      changes.push({
        type: "delete",
        path: hunk.path,
        oldContent: content,
        newContent: "",
        additions: 0,
        deletions: countLines(content),
        notes: [],
      })
      return undefined
    }

    if (content === undefined) return `Update File ${hunk.path} ${at}: file not found`
    const movePath = hunk.movePath !== undefined && hunk.movePath !== hunk.path ? hunk.movePath : undefined
    if (movePath !== undefined) {
      const target = read(movePath)
      if ("error" in target) return target.error
      if (target.content !== undefined) {
        return `Update File ${hunk.path} ${at}: cannot move to ${movePath}, which already exists; add "*** Delete File: ${movePath}" before this section to replace it`
      }
    }
    const applied = applyChunks(content, hunk.path, hunk.chunks)
    if (!applied.ok) return applied.message
    if (movePath !== undefined) {
      overlay.set(hunk.path, undefined)
      overlay.set(movePath, applied.content)
    } else {
      overlay.set(hunk.path, applied.content)
    }
    changes.push({
      type: "update",
      path: hunk.path,
      ...(movePath !== undefined ? { movePath } : {}),
      oldContent: content,
      newContent: applied.content,
      additions: applied.additions,
      deletions: applied.deletions,
      notes: applied.notes,
    })
    return undefined
  }
}
