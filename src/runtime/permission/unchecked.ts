/**
 * Patterns the rules cannot check. A tool lists them in its ask's metadata under `unchecked` when a
 * pattern says nothing about what will run: the bash tool for a command whose command word is computed
 * at run time (`$(echo rm) x`, `"$@"`, `eval "$x"`). No rule about a program can be matched against such
 * a pattern, so it gets the strictest outcome the rules could give:
 *
 * 1. a rule that names it (`"$CMD *": "allow"`, or a deny) decides, as for any pattern;
 * 2. the catch-all (`*`, which matches anything because it checks nothing) allows it only when the
 *    rules for the permission never deny or ask; otherwise it is asked about (a saved or session
 *    approval of that exact pattern still counts), and where no one can be asked it is refused with
 *    `reason` and `advice` (see `unansweredNote`).
 */
import type { Unchecked } from "../tool/context.ts"
import type { Rule, Ruleset } from "./rule.ts"

export type { Unchecked }

import { match } from "./wildcard.ts"

/** The `unchecked` entry of an ask's metadata, when it is well formed. */
export function uncheckedOf(metadata: Readonly<Record<string, unknown>> | undefined): Unchecked | undefined {
  const value = metadata?.unchecked as Partial<Unchecked> | undefined
  if (typeof value !== "object" || value === null || !Array.isArray(value.patterns)) return undefined
  const patterns = value.patterns.filter((pattern): pattern is string => typeof pattern === "string")
  return {
    patterns,
    reason: typeof value.reason === "string" ? value.reason : "the rules cannot check what it runs",
    advice: typeof value.advice === "string" ? value.advice : "",
  }
}

/** A rule pattern that matches anything (`*`, `**`): it checks nothing about what runs. */
export function isCatchAll(pattern: string): boolean {
  return /^\*+$/.test(pattern)
}

/** Whether any rule for `permission` denies or asks: then the catch-all does not vouch for unchecked patterns. */
export function restricts(permission: string, rulesets: readonly Ruleset[]): boolean {
  return rulesets.some((rules) =>
    rules.some((rule) => rule.action !== "allow" && match(permission, rule.permission)),
  )
}

/**
 * Whether the allowing `rule` lets an unchecked pattern through: it names the pattern, or it is the
 * catch-all and nothing for `permission` denies or asks.
 */
export function vouches(rule: Rule, permission: string, rulesets: readonly Ruleset[]): boolean {
  return !isCatchAll(rule.pattern) || !restricts(permission, rulesets)
}

/**
 * What a surface that cannot ask anyone says when it refuses an ask with unchecked patterns: why the
 * rules could not decide and what to do. Undefined for an ordinary ask.
 */
export function unansweredNote(metadata: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const unchecked = uncheckedOf(metadata)
  if (!unchecked || unchecked.patterns.length === 0) return undefined
  return `${unchecked.reason} The permission rules deny or ask for some commands, so a command they cannot check needs a person's approval, and no one could be asked.${unchecked.advice ? ` ${unchecked.advice}` : ""}`
}
