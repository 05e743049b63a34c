import { configDirs } from "../../../runtime/config/config.ts"
import { type Policy, preApproved } from "../../../runtime/permission/agents/policy.ts"
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
  readonly permissions: readonly PermissionRules[]
  readonly preApproved: ReturnType<typeof preApproved>
  readonly approvals: number
}

/**
 * Gathers the report.
 * 1. Sources: the policy's files (used, or found and not used) and the directories searched.
 * 2. For each permission key the agent's rules name (and `*` for the rest): the rules that apply to it,
 *    in order, without those a later rule makes unreachable (same pattern, or a later `*` pattern).
 * 3. The directories outside the project allowed without an ask.
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
    permissions: keys.map((permission) => ({ permission, rules: reachable(permission, rules) })),
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

/** The report as text for a terminal. */
export function formatPolicyReport(report: PolicyReport): string {
  const lines = [
    `Permission policy of ${report.directory} for agent ${report.agent} (the last matching rule wins).`,
    "",
    "Sources:",
  ]
  if (report.sources.length === 0) lines.push("  no config file: toolbelt's defaults only")
  for (const source of report.sources)
    lines.push(
      `  ${source.used ? "used    " : "not used"}  ${source.file}${source.note ? `: ${source.note}` : ""}`,
    )
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

function from(rule: Rule): string {
  return rule.source ? describeSource(rule.source) : "(made in code)"
}
