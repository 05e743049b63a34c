// A toolbelt's internals: the parts the surfaces and the tests reach, kept off its public object.

import type { Store } from "../platform/store/store.ts"
import type { Limits } from "../platform/text/limits.ts"
import type { Bus } from "../runtime/bus/bus.ts"
import type { Hooks } from "../runtime/hooks/hooks.ts"
import type { OutputStore } from "../runtime/output/store.ts"
import type { Policy } from "../runtime/permission/agents/policy.ts"
import type { PermissionEngine } from "../runtime/permission/engine.ts"
import type { QuestionService } from "../runtime/question/service.ts"
import type { Registry } from "../runtime/registry/registry.ts"
import type { ToolSearchControl } from "../runtime/tool-search/control.ts"

/**
 * What a surface needs beyond a library user's `Toolbelt`: the records, the bus to publish on, the
 * whole registry, permission engine and question service, the policy, tool search. The package's
 * entry point does not export this module, so a library user sees only the narrow object.
 */
export interface ToolbeltInternals {
  readonly registry: Registry
  /** The whole engine: saved approvals and their revocation, evaluation, asks (the public object has list and reply). */
  readonly permission: PermissionEngine
  /** The permission policy: every agent's rules and the config files (and variable) they came from. */
  readonly policy: Policy
  /** The whole question service (the public object has list, reply and reject). */
  readonly questions: QuestionService
  readonly bus: Bus
  readonly hooks: Hooks
  readonly store: Store
  readonly output: OutputStore
  readonly limits: Limits
  /** Tool search: what each session loaded, the listeners to loads, and the deferral in effect. */
  readonly toolSearch: ToolSearchControl
}

// Keyed by the public object, so the internals live exactly as long as the toolbelt and no member of
// it leads to them.
const byToolbelt = new WeakMap<object, ToolbeltInternals>()

/** Called once by `createToolbelt` for the object it returns. */
export function attachInternals<T extends object>(toolbelt: T, parts: ToolbeltInternals): T {
  byToolbelt.set(toolbelt, parts)
  return toolbelt
}

/** The internals of a toolbelt `createToolbelt` made; for the surfaces and tests, never the library's users. */
export function internals(toolbelt: object): ToolbeltInternals {
  const found = byToolbelt.get(toolbelt)
  if (!found)
    throw new TypeError(
      "Not a toolbelt made by createToolbelt: its internals are known only for those. Pass the object createToolbelt returned.",
    )
  return found
}
