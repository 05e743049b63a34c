// The apply_patch tool's work (apply_patch.ts declares the tool): parse, resolve and guard the paths,
// then under the locks of every file read, verify, ask and write all or nothing. Loaded at the first
// patch.
import { dirname } from "node:path"
import type { z } from "zod"
import { assertLandsOn } from "../../platform/fs/atomic-write.ts"
import { canonicalPath } from "../../platform/fs/canonical-path.ts"
import { FileSystemError } from "../../platform/fs/errors.ts"
import { withFileLocks } from "../../platform/fs/lock.ts"
import { asSentence } from "../../platform/text/sentence.ts"
import * as Tool from "../../runtime/tool/index.ts"
import { services } from "../../runtime/tool/services.ts"
import { withDiagnostics } from "../kit/diagnostics/edit-diagnostics.ts"
import { checkExternalDirectory, contains } from "../kit/external-directory.ts"
import { fileDiff } from "../kit/file-edit/diff.ts"
import { encodeEdit } from "../kit/file-edit/encode-edit.ts"
import { lockFailure, recordWritten, staleness } from "../kit/file-edit/ledger.ts"
import { type Existing, readExisting } from "../kit/file-edit/target.ts"
import { type CommitResult, commit, type FileOperation } from "../kit/file-edit/transaction.ts"
import { relativePath, resolvePath } from "../kit/paths.ts"
import type { ApplyPatchMetadata as Metadata, Parameters, PatchedFile } from "./params.ts"
import type { FileHunk } from "./parse.ts"
import type { PlannedChange } from "./plan.ts"

export async function execute(
  params: z.output<Parameters>,
  ctx: Tool.Context,
): Promise<Tool.Result<Metadata>> {
  // 1. Parse.
  // The patch engine is loaded at the first patch, not at every start-up (see ARCHITECTURE.md).
  const [{ parsePatch }, { planPatch }] = await Promise.all([import("./parse.ts"), import("./plan.ts")])
  const parsed = parsePatch(params.patchText)
  if (!parsed.ok) {
    // The parser's problem names the line and what was expected there.
    const problem = parsed.message
    throw new Tool.ToolFailure(`apply_patch could not parse the patch: ${asSentence(problem)}`)
  }

  // 2. Resolve and guard.
  const tools = services(ctx)
  const paths = new PathKeys(tools.directory)
  const hunks: FileHunk[] = parsed.hunks.map((hunk) =>
    hunk.type === "update" && hunk.movePath !== undefined
      ? { ...hunk, path: paths.key(hunk.path), movePath: paths.key(hunk.movePath) }
      : { ...hunk, path: paths.key(hunk.path) },
  )
  // Decided on where each write lands (symlinks followed, dangling ones too), once per directory there.
  const resolved = new Map<string, string>()
  const decided = new Set<string>()
  for (const absolute of paths.absolutes()) {
    const target = await canonicalPath(absolute)
    resolved.set(absolute, target)
    if (decided.has(dirname(target))) continue
    const decision = await checkExternalDirectory(ctx, absolute, { kind: "file" })
    resolved.set(absolute, decision.resolved ?? target)
    decided.add(dirname(decision.resolved ?? target))
  }
  ctx.abort.throwIfAborted()

  // 3. Under the locks of every file: read, verify, ask, write.
  const result = await withFileLocks(
    paths.absolutes(),
    async () => {
      ctx.abort.throwIfAborted()
      // a. Read.
      const existing = new Map<string, Existing>()
      for (const key of paths.keys()) existing.set(key, await readExisting(paths.absolute(key), ctx.abort))
      if (tools.requireRead) {
        for (const [key, state] of existing) {
          if (state.kind !== "file") continue
          const stale = await staleness({
            ledger: tools.readLedger,
            sessionID: ctx.sessionID,
            canonical: await canonicalPath(paths.absolute(key)),
            shown: paths.absolute(key),
            data: state.data,
          })
          if (stale) throw new Tool.ToolFailure(`${stale}\n\nNo file was changed.`)
        }
      }

      // b. Verify every hunk.
      const planned = planPatch(hunks, (key) => {
        const state = existing.get(key)
        if (state?.kind === "directory") throw new Error("it is a directory, not a file")
        // A binary (or undecodable) file may be deleted whole, never changed as text.
        if (state?.kind === "refused") {
          if (onlyDeleted(hunks, key)) return ""
          throw new Error(state.reason)
        }
        return state?.kind === "file" ? state.text : undefined
      })
      if (!planned.ok) {
        throw new Tool.ToolFailure(
          `apply_patch verification failed; no file was changed.\n\n${planned.message}\n\n` +
            "Fix the file sections named above (read a file again if it changed), then send the whole patch again.",
        )
      }
      const files = planned.changes.map((change) => describeChange(change, paths, tools.worktree))
      ctx.abort.throwIfAborted()

      // c. One ask for the whole patch.
      await ctx.ask({
        permission: "edit",
        patterns: [...new Set(files.flatMap((file) => relativesOf(file, tools.worktree)))],
        always: ["*"],
        metadata: {
          filepath: files.map((file) => file.relativePath).join(", "),
          diff: files.map((file) => file.diff).join("\n"),
          files,
        },
      })
      ctx.abort.throwIfAborted()

      // d. Write, restoring everything if one write fails.
      const operations = toOperations(planned.changes, paths, existing)
      // The ask may have waited for a person: a symlink planted meanwhile must not redirect a write.
      try {
        for (const { path } of operations) assertLandsOn(path, resolved.get(path) ?? path)
      } catch (error) {
        if (error instanceof FileSystemError)
          throw new Tool.ToolFailure(`${error.message}\n\nNo file was changed.`)
        throw error
      }
      const committed = await commit(operations, { recovery: tools.recovery, label: "apply_patch" })
      if (!committed.ok) throw new Tool.ToolFailure(describeFailure(committed, tools.worktree))

      // e. Ledger and events.
      const final = new Map<string, FileOperation["content"]>()
      for (const operation of operations) final.set(operation.path, operation.content)
      for (const [path, content] of final) {
        const canonical = await canonicalPath(path)
        if (content === null) await tools.readLedger.forget(ctx.sessionID, canonical)
        else await recordWritten({ ledger: tools.readLedger, sessionID: ctx.sessionID, canonical, content })
        tools.publish("file.edited", { file: path, sessionID: ctx.sessionID })
      }

      // 4. Shape.
      const lines = [...new Set(planned.changes.map((change) => summaryLine(change, paths, tools.worktree)))]
      const notes = planned.changes.flatMap((change) => change.notes)
      let output = `Success. Updated the following files:\n${lines.join("\n")}`
      if (notes.length > 0) {
        output += `\n\nThe patch did not match exactly everywhere:\n${notes.map((note) => `- ${note}`).join("\n")}`
      }
      return {
        title: lines.join(", "),
        output,
        metadata: { diff: files.map((file) => file.diff).join("\n"), files },
      }
    },
    { signal: ctx.abort },
  ).catch((error: unknown) => {
    throw lockFailure(error)
  })
  // Outside the locks: the errors the language servers report on the changed files.
  return withDiagnostics(
    ctx,
    result.metadata.files.flatMap((file) => [file.filePath, ...(file.movePath ? [file.movePath] : [])]),
    result,
  )
}

/**
 * The patch's paths as the planner compares them: relative to the project when inside it (so `a.ts`,
 * `./a.ts` and `/project/a.ts` are one file, and messages stay short), absolute otherwise.
 */
class PathKeys {
  readonly #directory: string
  readonly #absolute = new Map<string, string>()

  constructor(directory: string) {
    this.#directory = directory
  }

  key(path: string): string {
    const absolute = resolvePath(this.#directory, path)
    const key = contains(this.#directory, absolute) ? relativePath(this.#directory, absolute) : absolute
    this.#absolute.set(key, absolute)
    return key
  }

  absolute(key: string): string {
    return this.#absolute.get(key) ?? resolvePath(this.#directory, key)
  }

  keys(): string[] {
    return [...this.#absolute.keys()]
  }

  absolutes(): string[] {
    return [...this.#absolute.values()]
  }
}

function describeChange(change: PlannedChange, paths: PathKeys, worktree: string): PatchedFile {
  const filePath = paths.absolute(change.path)
  const movePath = change.movePath === undefined ? undefined : paths.absolute(change.movePath)
  const diff = fileDiff({
    file: filePath,
    ...(movePath ? { to: movePath } : {}),
    before: change.oldContent,
    after: change.newContent,
  })
  return {
    filePath,
    relativePath: relativePath(worktree, movePath ?? filePath),
    type: movePath ? "move" : change.type,
    ...(movePath ? { movePath } : {}),
    diff: diff.diff,
    patch: diff.patch ?? "",
    additions: diff.additions,
    deletions: diff.deletions,
    ...(diff.omitted ? { diffOmitted: diff.omitted } : {}),
  }
}

/** The permission patterns of one file: its path, and its destination for a move. */
function relativesOf(file: PatchedFile, worktree: string): string[] {
  const source = relativePath(worktree, file.filePath)
  return file.movePath ? [source, file.relativePath] : [source]
}

/**
 * The writes and removals of the plan, in patch order. An updated file keeps its encoding and BOM, also
 * when it moves, and no byte outside what its hunks changed (`encodeEdit`); an added file is UTF-8.
 */
function toOperations(
  changes: readonly PlannedChange[],
  paths: PathKeys,
  existing: ReadonlyMap<string, Existing>,
): FileOperation[] {
  const operations: FileOperation[] = []
  for (const change of changes) {
    const path = paths.absolute(change.path)
    if (change.type === "add") operations.push({ path, content: change.newContent })
    else if (change.type === "delete") operations.push({ path, content: null })
    else {
      const state = existing.get(change.path)
      const source = state?.kind === "file" ? state : ({ kind: "missing" } as const)
      const content = encodeEdit({ existing: source, text: change.newContent, shown: path })
      if (change.movePath === undefined) operations.push({ path, content })
      else operations.push({ path: paths.absolute(change.movePath), content }, { path, content: null })
    }
  }
  return operations
}

function summaryLine(change: PlannedChange, paths: PathKeys, worktree: string): string {
  const letter = change.type === "add" ? "A" : change.type === "delete" ? "D" : "M"
  return `${letter} ${relativePath(worktree, paths.absolute(change.movePath ?? change.path))}`
}

function describeFailure(result: Extract<CommitResult, { ok: false }>, worktree: string): string {
  const name = (path: string) => relativePath(worktree, path)
  const reason = (error: unknown) =>
    error instanceof FileSystemError || error instanceof Error ? error.message : String(error)
  const lines = [
    `apply_patch failed while writing ${name(result.failed.path)}: ${reason(result.failed.error)}`,
  ]
  if (result.unrestored.length === 0) {
    lines.push(
      result.restored.length > 0
        ? `The files already written were restored (${result.restored.map(name).join(", ")}), so no file was changed.`
        : "No file was changed.",
    )
  } else {
    lines.push(
      "Some files could not be restored and are left partly patched; check them before retrying:",
      ...result.unrestored.map((entry) => `- ${name(entry.path)}: ${reason(entry.error)}`),
    )
    if (result.restored.length > 0) lines.push(`Restored: ${result.restored.map(name).join(", ")}.`)
  }
  lines.push("Fix the cause, then send the whole patch again.")
  return lines.join("\n")
}

/** Whether every hunk of the patch that names `key` deletes it. */
function onlyDeleted(hunks: readonly FileHunk[], key: string): boolean {
  const naming = hunks.filter(
    (hunk) => hunk.path === key || (hunk.type === "update" && hunk.movePath === key),
  )
  return naming.length > 0 && naming.every((hunk) => hunk.type === "delete")
}
