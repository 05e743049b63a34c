// The errors a language server reported after an edit, as opencode appends them to the edit's output:
// errors only, at most 20 per file (the rest counted), each `ERROR [line:col] message` (1-based), in a
// <diagnostics file="..."> block.
import type { Diagnostic } from "vscode-languageserver-types"

/** Errors shown per file. */
export const MAX_PER_FILE = 20
/** Other files (not changed by the edit) whose errors are shown. */
export const MAX_OTHER_FILES = 5

const ERROR = 1

/** The error-level diagnostics of a list (severity 1; a diagnostic without one is not counted as an error). */
export function errorsOf(diagnostics: readonly Diagnostic[] | undefined): Diagnostic[] {
  return (diagnostics ?? []).filter((diagnostic) => diagnostic.severity === ERROR)
}

/** One file's errors as a block; empty when it has none. */
export function formatFileErrors(file: string, diagnostics: readonly Diagnostic[] | undefined): string {
  const errors = errorsOf(diagnostics)
  if (errors.length === 0) return ""
  const lines = errors
    .slice(0, MAX_PER_FILE)
    .map(
      (error) =>
        `ERROR [${error.range.start.line + 1}:${error.range.start.character + 1}] ${messageOf(error).replaceAll("\n", " ")}`,
    )
  if (errors.length > MAX_PER_FILE) lines.push(`... and ${errors.length - MAX_PER_FILE} more`)
  return `<diagnostics file="${file}">\n${lines.join("\n")}\n</diagnostics>`
}

/**
 * What follows an edit's output: for each changed file with errors, "LSP errors detected in <file>,
 * please fix:" (in "this file" when the edit changed one) and its block; then up to five other files
 * with errors under "LSP errors detected in other files:". Empty when there are no errors.
 */
export function formatEditDiagnostics({
  changed,
  others,
  show,
}: {
  /** The files the edit changed, in its order, with what the servers reported for each. */
  changed: readonly { readonly file: string; readonly diagnostics: readonly Diagnostic[] | undefined }[]
  others: Readonly<Record<string, readonly Diagnostic[]>>
  /** How a path is named in the heading (relative to the project). */
  show: (file: string) => string
}): string {
  const parts: string[] = []
  for (const { file, diagnostics } of changed) {
    const block = formatFileErrors(file, diagnostics)
    if (!block) continue
    const where = changed.length === 1 ? "this file" : show(file)
    parts.push(`LSP errors detected in ${where}, please fix:\n${block}`)
  }
  const otherBlocks = Object.entries(others)
    .map(([file, diagnostics]) => formatFileErrors(file, diagnostics))
    .filter((block) => block !== "")
    .slice(0, MAX_OTHER_FILES)
  if (otherBlocks.length) parts.push(`LSP errors detected in other files:\n${otherBlocks.join("\n")}`)
  return parts.map((part) => `\n\n${part}`).join("")
}

/** A diagnostic's message as one string (LSP 3.18 allows markup). */
function messageOf(diagnostic: Diagnostic): string {
  return typeof diagnostic.message === "string" ? diagnostic.message : diagnostic.message.value
}
