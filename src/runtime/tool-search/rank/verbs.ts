// The action verbs of tool names and queries ("get", "list", "create", "send"…): they say what to do,
// while the nouns say to what, and a query's nouns are the stronger evidence for which tool it wants
// (many tools "get"; few hold "invoice"). The ranking weighs these verbs below the query's other words.
import { terms } from "./terms.ts"

const WORDS =
  "get fetch retrieve read show view load list find search query look see check create add new make " +
  "insert generate update edit modify change set patch delete remove drop clear send post put run " +
  "execute start stop open close move copy save write upload download describe manage handle perform " +
  "return provide take give go do"

const VERBS: ReadonlySet<string> = new Set(terms(WORDS))

/** Whether a (stemmed) term is a generic action verb. */
export function isVerb(term: string): boolean {
  return VERBS.has(term)
}
