// One decision from several rulesets: an agent's ruleset, and constraints that can only make it
// stricter. A constraint is a ruleset someone else wrote that must hold too (a project's rules, another
// agent's config, a parent session's whole policy, a server's ceiling agent); evaluated on its own, it
// never needs to know what the agent's ruleset says, so no source can open what another closed.

import type { Action, Rule, Ruleset } from "./rule.ts"
import { lastMatch } from "./ruleset.ts"
import { vouches } from "./unchecked.ts"

/** What the rulesets give one pattern, and the rule that gave it. */
export interface Verdict {
  readonly action: Action
  /** The rule that decided; undefined when nothing matched and asking is the default. */
  readonly rule: Rule | undefined
}

/** How strict an action is: a decision takes the strictest its rulesets give. */
const STRICTNESS: Readonly<Record<Action, number>> = { allow: 0, ask: 1, deny: 2 }

/**
 * Decides `permission` on `pattern`:
 * 1. the agent's ruleset: its last matching rule, or ask when none matches;
 * 2. each constraint on its own: its last matching rule; a constraint with no matching rule does not
 *    restrict;
 * 3. an allow for an unchecked pattern (`unchecked.ts`) counts as ask unless it vouches for it within
 *    its own ruleset;
 * 4. the strictest of them (deny, then ask, then allow); the first ruleset to give it names the rule.
 */
export function decide(
  permission: string,
  pattern: string,
  rules: Ruleset,
  constraints: readonly Ruleset[] = [],
  options: { unchecked?: boolean } = {},
): Verdict {
  let verdict = judge(permission, pattern, rules, options.unchecked) ?? { action: "ask", rule: undefined }
  for (const constraint of constraints) {
    if (verdict.action === "deny") break
    const found = judge(permission, pattern, constraint, options.unchecked)
    if (found && STRICTNESS[found.action] > STRICTNESS[verdict.action]) verdict = found
  }
  return verdict
}

/** One ruleset's verdict on its own; undefined when none of its rules matches. */
function judge(permission: string, pattern: string, rules: Ruleset, unchecked = false): Verdict | undefined {
  const rule = lastMatch(permission, pattern, [rules])
  if (!rule) return undefined
  if (rule.action === "allow" && unchecked && !vouches(rule, permission, [rules]))
    return { action: "ask", rule }
  return { action: rule.action, rule }
}
