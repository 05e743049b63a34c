export type Action = "allow" | "deny" | "ask"

export interface Rule {
  readonly permission: string
  readonly pattern: string
  readonly action: Action
}

export type Ruleset = readonly Rule[]
