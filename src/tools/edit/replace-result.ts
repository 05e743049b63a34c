/** What `replace` returns, and the fixed messages of its refusals. */
import type { MatcherName } from "./match-context.ts"

export type ReplaceResult =
  | {
      readonly ok: true
      /** The new file text, in the file's own line endings. */
      readonly content: string
      readonly matcher: MatcherName
      /** How many spans were replaced. */
      readonly occurrences: number
      /** What was not exact and how it was reconciled, for the tool to report; absent when exact. */
      readonly normalisation?: string
      /** 1-based line (in the original file) where each replaced span starts. */
      readonly lines: readonly number[]
    }
  | {
      readonly ok: false
      readonly reason: "not-found" | "ambiguous" | "identical" | "empty"
      readonly message: string
    }

export const IDENTICAL_MESSAGE = "No changes to apply: oldString and newString are identical."
export const EMPTY_MESSAGE =
  "oldString cannot be empty when editing an existing file. Provide the exact text to replace, or use write for an intentional full-file replacement."
export const NOT_FOUND_MESSAGE =
  "Could not find oldString in the file. It must match exactly, including whitespace and indentation."
