// Whether a tool reads or writes, from the action verbs of its name, and what a query asks for, from
// its words. "list the branches" wants to read: a tool named create_branch shares the query's noun
// but changes things, and is weighed down a little (and "create a branch" does not want list_branches).
// Finer kinds (create, change, delete, send) were measured and did no better: tasks use nouns as verbs
// ("email the link", "comment on it") that cross those lines.
import { terms } from "./terms.ts"

export type Action = "read" | "write"

const KINDS: Readonly<Record<Action, string>> = {
  read: "get list read search find show view fetch retrieve describe query lookup browse inspect check count",
  write:
    "create add new insert make generate draft update edit modify set patch rename change move replace " +
    "delete remove clear drop destroy purge trash erase archive send post reply publish share notify " +
    "forward run execute trigger start launch invoke restart deploy close merge approve assign complete upload " +
    "write save",
}

const kindOf = new Map<string, Action>()
for (const [kind, words] of Object.entries(KINDS) as [Action, string][])
  for (const term of terms(words)) if (!kindOf.has(term)) kindOf.set(term, kind)

/** The kinds of action the terms name (a term of no kind adds nothing). */
export function actions(list: Iterable<string>): Set<Action> {
  const out = new Set<Action>()
  for (const term of list) {
    const kind = kindOf.get(term)
    if (kind) out.add(kind)
  }
  return out
}

/** The kind of the first term that has one. */
export function leadAction(list: Iterable<string>): Action | undefined {
  for (const term of list) {
    const kind = kindOf.get(term)
    if (kind) return kind
  }
  return undefined
}
