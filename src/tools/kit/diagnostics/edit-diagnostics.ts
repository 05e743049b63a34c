// What a tool that changed files adds to its result: the errors the language servers report on them.
import type { Diagnostic } from "vscode-languageserver-types"
import type { Context, Result } from "../../../runtime/tool/context.ts"
import { services } from "../../../runtime/tool/services.ts"
import { relativePath } from "../paths.ts"
import { errorsOf, formatEditDiagnostics } from "./format-diagnostics.ts"

/** What metadata carries for UIs: each file's diagnostics (every severity), by absolute path. */
export type DiagnosticsMetadata = Record<string, readonly Diagnostic[]>

/**
 * `result` with the language servers' errors on `files` appended to its output, as opencode does after
 * edit, write and apply_patch, and every diagnostic in `metadata.diagnostics`.
 * 1. No language servers (no toolbelt), or no server for any of the files: `result` as it is, at once
 *    (a file no server handles is left out of the rest).
 * 2. Otherwise the servers are told of the change and their diagnostics awaited, for a few seconds at
 *    most (the pool's bound); the change is already on disk, and nothing here can fail the call.
 * 3. Errors only are appended, 20 per file, and those of up to 5 other files the change broke.
 */
export async function withDiagnostics<M extends Record<string, unknown>>(
  ctx: Context,
  files: readonly string[],
  result: Result<M>,
): Promise<Result<M & { diagnostics?: DiagnosticsMetadata }>> {
  const { languageServers, worktree } = services(ctx)
  const served = files.filter((file) => languageServers?.lookup(file).kind === "servers")
  if (!languageServers?.afterEdits || served.length === 0) return result
  const reported = await languageServers.diagnostics(served, ctx.abort).catch(() => undefined)
  if (!reported) return result
  const others = Object.fromEntries(
    Object.entries(reported.others).filter(([, diagnostics]) => errorsOf(diagnostics).length > 0),
  )
  const text = formatEditDiagnostics({
    changed: served.map((file) => ({ file, diagnostics: reported.files[file] })),
    others,
    show: (file) => relativePath(worktree, file),
  })
  return {
    ...result,
    output: result.output + text,
    metadata: { ...result.metadata, diagnostics: { ...others, ...reported.files } },
  }
}
