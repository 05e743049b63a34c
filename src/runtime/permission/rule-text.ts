import { describeSource, type Rule } from "./rule.ts"

/**
 * A rule as its config line reads, with where it was written: `bash "rm *": "deny" (permission.bash["rm *"]
 * in /p/toolbelt.json)`; a rule for every pattern is `"doom_loop": "ask"`.
 */
export function describeRule(rule: Rule): string {
  const line =
    rule.pattern === "*"
      ? `${JSON.stringify(rule.permission)}: ${JSON.stringify(rule.action)}`
      : `${rule.permission} ${JSON.stringify(rule.pattern)}: ${JSON.stringify(rule.action)}`
  return rule.source ? `${line} (${describeSource(rule.source)})` : line
}

/** Several rules in words, `; `-separated (a denial that no single rule explains). */
export function describeRules(rules: readonly Rule[]): string {
  return rules.length ? rules.map(describeRule).join("; ") : "(none)"
}
