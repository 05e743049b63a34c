import { blockAnchor, contextAware } from "./anchor-matchers.ts"
import { escapeNormalised } from "./escape-matcher.ts"
import type { Matcher } from "./match-context.ts"
import { exact, multiOccurrence, trimmedBoundary } from "./substring-matchers.ts"
import { indentationFlexible, lineTrimmed, whitespaceNormalised } from "./whitespace-matchers.ts"

/** The chain, in opencode's order. */
export const MATCHERS: readonly Matcher[] = [
  { name: "exact", describe: "", when: "", find: exact },
  {
    name: "line-trimmed",
    describe: "matched ignoring leading and trailing whitespace on each line",
    when: "when ignoring leading and trailing whitespace on each line",
    find: lineTrimmed,
  },
  {
    name: "block-anchor",
    describe: "matched by its first and last lines",
    when: "when matching by first and last lines",
    find: blockAnchor,
  },
  {
    name: "whitespace-normalised",
    describe: "matched ignoring differences in whitespace",
    when: "when ignoring differences in whitespace",
    find: whitespaceNormalised,
  },
  {
    name: "indentation-flexible",
    describe: "matched ignoring indentation",
    when: "when ignoring indentation",
    find: indentationFlexible,
  },
  {
    name: "escape-normalised",
    describe: 'matched after unescaping backslash sequences (\\n, \\t, \\", ...) in oldString and newString',
    when: "when unescaping backslash sequences",
    find: escapeNormalised,
  },
  {
    name: "trimmed-boundary",
    describe: "matched ignoring whitespace at the start and end of oldString",
    when: "when ignoring whitespace at the start and end of oldString",
    find: trimmedBoundary,
  },
  {
    name: "context-aware",
    describe: "matched by its first and last lines and most middle lines",
    when: "when matching by first and last lines",
    find: contextAware,
  },
  { name: "multi-occurrence", describe: "", when: "", find: multiOccurrence },
]
