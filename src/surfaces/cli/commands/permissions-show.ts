import { configDirs } from "../../../runtime/config/config.ts"
import { type Policy, preApproved, type SetAside } from "../../../runtime/permission/agents/policy.ts"
import type { PolicySource } from "../../../runtime/permission/config.ts"
import { describeSource, type Rule, type Ruleset } from "../../../runtime/permission/rule.ts"
import { match } from "../../../runtime/permission/wildcard.ts"

/** The rules that can still decide one permission, in order: the last matching one wins. */
export interface PermissionRules {
  /** A permission key, or `*` for every permission not listed. */
  readonly permission: string
  readonly rules: readonly Rule[]
}

/** Everything `toolbelt permissions` shows about a project's policy for one agent. */
export interface PolicyReport {
  readonly directory: string
  readonly agent: string
  /** The directories where config files are looked for, lowest precedence first. */
  readonly searched: readonly string[]
  readonly sources: readonly PolicySource[]
  readonly imports: readonly string[]
  /** Whether the project's own rules are applied (trusted) or only tighten. */
  readonly trusted: boolean
  readonly permissions: readonly PermissionRules[]
  /**
   * What else holds over every call of the agent, each read on its own: the rules in it that can make a
   * decision stricter (its denies and asks that stand).
   */
  readonly constraints: readonly { readonly by: string; readonly rules: readonly Rule[] }[]
  /** Configured rules for this agent (or every agent) not applied as written, and why. */
  readonly setAside: readonly SetAside[]
  readonly preApproved: ReturnType<typeof preApproved>
  readonly approvals: number
}

/**
 * Gathers the report.
 * 1. Sources: the policy's files (applied, tighten-only or unused, by layer) and the directories searched.
 * 2. For each permission key the agent's rules name (and `*` for the rest): the rules that apply to it,
 *    in order, without those a later rule makes unreachable (same pattern, or a later `*` pattern).
 * 3. The constraints the agent is held to, with their reachable denies and asks; the rules set aside.
 * 4. The directories outside the project allowed without an ask.
 */
export function policyReport(input: {
  directory: string
  agent: string
  policy: Policy
  env: NodeJS.ProcessEnv
  approvals: number
}): PolicyReport {
  const rules = input.policy.rulesOf(input.agent)
  const keys = [...new Set(rules.map((rule) => rule.permission).filter((key) => key !== "*")), "*"]
  return {
    directory: input.directory,
    agent: input.agent,
    searched: configDirs(input.directory, input.env),
    sources: input.policy.sources,
    imports: input.policy.imports,
    trusted: input.policy.trusted,
    permissions: keys.map((permission) => ({ permission, rules: reachable(permission, rules) })),
    constraints: input.policy.heldTo(input.agent).map(({ by, rules: held }) => ({
      by,
      rules: tightening(held),
    })),
    setAside: input.policy.setAside.filter(
      (entry) => entry.agent === undefined || entry.agent === input.agent,
    ),
    preApproved: preApproved(rules),
    approvals: input.approvals,
  }
}

/** The rules for `permission` that can still be the last match. */
function reachable(permission: string, rules: Ruleset): Rule[] {
  const applying = rules.filter((rule) =>
    permission === "*" ? rule.permission === "*" : match(permission, rule.permission),
  )
  return applying.filter(
    (rule, index) =>
      !applying.slice(index + 1).some((later) => later.pattern === "*" || later.pattern === rule.pattern),
  )
}

/** The denies and asks of a constraint that can still be its last match: what it can tighten. */
function tightening(rules: Ruleset): Rule[] {
  const keys = [...new Set(rules.map((rule) => rule.permission))]
  return keys.flatMap((key) =>
    reachable(key, rules).filter((rule) => rule.permission === key && rule.action !== "allow"),
  )
}

/** The report as text for a terminal. */
export function formatPolicyReport(report: PolicyReport): string {
  const lines = [
    `Permission policy of ${report.directory} for agent ${report.agent} (the last matching rule wins).`,
    "",
    "Sources:",
  ]
  if (report.sources.length === 0) lines.push("  no config file: toolbelt's defaults only")
  for (const source of report.sources) {
    lines.push(
      `  ${USE[source.use].padEnd(12)}  ${source.layer === "user" ? "user   " : "project"}  ${source.file}${source.note ? `: ${source.note}` : ""}`,
    )
    if (source.unread?.length)
      lines.push(
        `                         (toolbelt reads only its permission and agent keys; not used: ${source.unread.join(", ")})`,
      )
  }
  lines.push(`  config files looked for in: ${report.searched.join(", ")}`)
  if (report.imports.length)
    lines.push(`  other agents' configs applied (permission_sources): ${report.imports.join(", ")}`)
  lines.push(
    `  saved "always" approvals: ${report.approvals} (toolbelt permissions list; a configured deny wins over them)`,
    "",
    "Rules:",
  )
  for (const { permission, rules } of report.permissions) {
    lines.push(`  ${permission === "*" ? "* (every other permission)" : permission}`)
    const width = Math.max(...rules.map((rule) => rule.pattern.length))
    for (const rule of rules)
      lines.push(`    ${rule.pattern.padEnd(width)}  ${rule.action.padEnd(5)}  ${from(rule)}`)
  }
  if (report.constraints.length) {
    lines.push("", "Also held to (each on its own: it can make a decision stricter, never looser):")
    for (const { by, rules } of report.constraints) {
      lines.push(`  ${by}`)
      if (!rules.length) lines.push("    (nothing it denies or asks)")
      for (const rule of rules)
        lines.push(`    ${rule.permission} ${rule.pattern}  ${rule.action.padEnd(5)}  ${from(rule)}`)
    }
  }
  if (report.setAside.length) {
    lines.push(
      "",
      "Not applied as written:",
      "  (taken: a deny or ask that holds over every call, as above; left out: an allow that opens nothing)",
    )
    // What was taken first, then what was left, each in the order written.
    const taken = report.setAside.filter(({ how }) => how === "tighten-only")
    const left = report.setAside.filter(({ how }) => how === "left-out")
    for (const { rule, how, why } of [...taken, ...left])
      lines.push(
        `  ${how === "left-out" ? "left out" : "taken   "}  ${rule.permission} ${rule.pattern} ${rule.action}  ${from(rule)}: ${why}`,
      )
  }
  lines.push("", "Pre-approved outside the project (external_directory):")
  const { everywhere, directories } = report.preApproved
  if (everywhere) lines.push(`  every path outside the project: ${from(everywhere)}`)
  for (const rule of directories) lines.push(`  ${rule.pattern}  ${from(rule)}`)
  if (!everywhere)
    lines.push(
      "  Any other path outside the project asks. To pre-approve a directory, add",
      `  "permission": {"external_directory": {"/path/to/dir/*": "allow"}} to toolbelt.json.`,
    )
  return `${lines.join("\n")}\n`
}

const USE: Readonly<Record<PolicySource["use"], string>> = {
  applied: "applied",
  "tighten-only": "tighten only",
  unused: "not used",
}

function from(rule: Rule): string {
  return rule.source ? describeSource(rule.source) : "(made in code)"
}
