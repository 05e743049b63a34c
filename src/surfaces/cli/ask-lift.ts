// What would really lift an ask that no one could answer, for the refusal of a command without a
// terminal: the rule that asked, where it is written, and what changes it. A project's rules and another
// agent's (opencode's) denies and asks hold over the person's own config, so pointing every refusal at
// ~/.config/toolbelt/toolbelt.json would send the person to a file that cannot help.

import type { Policy } from "../../runtime/permission/agents/policy.ts"
import { decide } from "../../runtime/permission/decision.ts"
import type { Rule } from "../../runtime/permission/rule.ts"
import { describeRule } from "../../runtime/permission/rule-text.ts"

/** The person's own config file, as the refusals name it. */
export const USER_CONFIG = "~/.config/toolbelt/toolbelt.json"

/** What a refusal needs of the policy: the agent's rules, what it is held to, and the files read. */
export type AskPolicy = Pick<Policy, "rulesOf" | "heldTo" | "sources">

/**
 * The sentences after "needs approval, and toolbelt <command> cannot ask": `--yes`, then what lifts it.
 * 1. A constraint that asks about one of the patterns (the project's rules, another agent's config, a
 *    ceiling agent), each judged on its own: that rule and its file; the person's config cannot lift it.
 * 2. Else the agent's own rule that asks: changed where it is written (`TOOLBELT_PERMISSION`, a file), or
 *    for one of toolbelt's defaults, its key set to "allow" in the person's config.
 * 3. Nothing matched (asking is the default), or no policy: allow it in the person's config.
 */
export function howToLift(
  policy: AskPolicy | undefined,
  request: { readonly agent: string; readonly permission: string; readonly patterns: readonly string[] },
): string {
  const once = "Re-run with --yes to approve it"
  const fallback = `${once}, or allow it in ${USER_CONFIG}.`
  if (!policy) return fallback
  const { permission, patterns } = request
  // The agent's own verdict on the first pattern it asks about (its rule: undefined when none matched).
  let own: { rule: Rule | undefined } | undefined
  try {
    const constraints = policy.heldTo(request.agent)
    const rules = policy.rulesOf(request.agent)
    // 1. A constraint that asks wins: nothing in the person's config opens it.
    for (const pattern of patterns) {
      for (const constraint of constraints) {
        const { action, rule } = decide(permission, pattern, constraint.rules)
        if (action === "ask" && rule) return `${once}. ${heldBy(rule, constraint.by, policy)}`
      }
      const verdict = decide(permission, pattern, rules)
      if (verdict.action === "ask") own ??= { rule: verdict.rule }
    }
  } catch {
    return fallback // an agent the policy does not know: the call would not have got this far
  }
  // 2. The agent's own rule.
  const origin = own?.rule?.source?.origin
  if (!own?.rule || origin === undefined) return fallback // 3.
  return ownRule(own.rule, origin, once)
}

/** How to lift an ask of the agent's own ruleset: where its rule is written decides. */
function ownRule(own: Rule, origin: string, once: string): string {
  if (origin === "TOOLBELT_PERMISSION")
    return `${once}, or change TOOLBELT_PERMISSION, which asks: ${describeRule(own)}.`
  if (isFile(origin)) return `${once}, or change the rule that asks, ${describeRule(own)}, in that file.`
  return `${once}, or set ${own.source!.key} to "allow" in ${USER_CONFIG}, over the rule that asks: ${describeRule(own)}.`
}

/** Why a constraint's ask holds whatever the person's config says, and where to change it. */
function heldBy(rule: Rule, by: string, policy: AskPolicy): string {
  const origin = rule.source?.origin
  const source = policy.sources.find((each) => each.file === origin)
  const why =
    source?.kind === "opencode"
      ? "is opencode's config, whose denies and asks hold for toolbelt's tools too"
      : source?.layer === "project"
        ? "is the project's config, whose denies and asks hold over every call (trusted or not)"
        : `holds as ${by}`
  const where = origin !== undefined && isFile(origin) ? `in ${origin}` : "where it is written"
  return `The ask comes from ${describeRule(rule)}, which ${why}, so your ${USER_CONFIG} cannot lift it: change or remove that rule ${where}.`
}

/** An absolute path (a config file), not a phrase such as "toolbelt's defaults". */
function isFile(origin: string): boolean {
  return /^(\/|[A-Za-z]:[\\/])/.test(origin)
}
