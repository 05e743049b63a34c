export type Action = "allow" | "deny" | "ask"

/** Where a rule was written: for messages and `toolbelt permissions` ("permission.bash in /p/toolbelt.json"). */
export interface RuleSource {
  /**
   * A config file's absolute path, `TOOLBELT_PERMISSION` (the environment variable), or a phrase for rules
   * no file holds ("toolbelt's defaults", "the plan agent's defaults", "the config given to createToolbelt").
   */
  readonly origin: string
  /** The key as written there: `permission`, `permission.bash`, `permission.bash["rm *"]`, `agent.plan.permission.edit`. */
  readonly key: string
}

export interface Rule {
  readonly permission: string
  readonly pattern: string
  readonly action: Action
  /** Where the rule was configured; absent for rules made in code (approvals, tests). */
  readonly source?: RuleSource
}

export type Ruleset = readonly Rule[]

/** `permission.bash["rm *"] in /p/toolbelt.json`: where a rule came from, for a sentence. */
export function describeSource(source: RuleSource): string {
  return `${source.key} in ${source.origin}`
}
