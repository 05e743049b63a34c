/**
 * What an "always" reply may save: no more than the person saw.
 *
 * A tool offers a broad `always` (`read` offers `*`, bash the command's arity prefix plus ` *`). That is
 * right when the ask came from the permission's catch-all rule (`bash: "ask"`) or from no rule at all.
 * It is wrong when a configured rule with a specific pattern asked (the defaults' `read *.env ask`, a
 * user's `read: {"*secret*": "ask"}`, `bash: {"git push *": "ask"}`): that rule exists so each such
 * path or command is seen, and saving `read *` after one `.env` would let every later `.env` through
 * unasked. For those, the pattern asked about is what is saved, and no tool entry that would also
 * cover it.
 */
import type { Rule } from "./rule.ts"
import { PATH_PERMISSIONS } from "./ruleset.ts"
import { match } from "./wildcard.ts"

export interface AlwaysScopeInput {
  readonly permission: string
  /** What the call needs (the request's patterns). */
  readonly patterns: readonly string[]
  /** What the tool offers to save. */
  readonly always: readonly string[]
  /** The configured rule that decides `permission` on `pattern`, if one does. */
  readonly ruleFor: (permission: string, pattern: string) => Rule | undefined
}

/**
 * The `always` list to offer and save, in the tool's order, then the narrowed patterns.
 * 1. Find the patterns a specific configured rule asks about (`ask`, pattern other than `*`).
 * 2. None: the tool's list, unchanged.
 * 3. Drop every tool entry that would match one of them, unless it is one of them: a tool that offers
 *    exactly the pattern it asked about (`external_directory`'s `/srv/x/*`) offers what was seen.
 * 4. Add each of them as it is, unless it holds `*` or `?`: a pattern reads those as wildcards, so it
 *    would match more than the one path or command asked about; then nothing is saved for it, and
 *    "always" allows this call only.
 */
export function alwaysScope({ permission, patterns, always, ruleFor }: AlwaysScopeInput): string[] {
  const specific = patterns.filter((pattern) => {
    const rule = ruleFor(permission, pattern)
    return rule?.action === "ask" && rule.pattern !== "*"
  })
  if (specific.length === 0) return [...always]
  const options = { paths: PATH_PERMISSIONS.has(permission) }
  const kept = always.filter(
    (entry) => specific.includes(entry) || !specific.some((pattern) => match(pattern, entry, options)),
  )
  const exact = specific.filter((pattern) => !WILDCARD.test(pattern))
  return [...new Set([...kept, ...exact])]
}

const WILDCARD = /[*?]/
