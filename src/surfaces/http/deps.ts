// What the API's routes work with: the project's toolbelt and what the server adds around it.
import type { ResolvedModel } from "../../adapters/ai/provider.ts"
import type { Toolbelt } from "../../compose/toolbelt.ts"
import type { Access } from "./access.ts"
import type { EventLog } from "./event-log.ts"
import type { SessionIndex } from "./session-index.ts"

export interface ApiDeps {
  readonly toolbelt: Toolbelt
  readonly events: EventLog
  readonly sessions: SessionIndex
  readonly access: Access
  /** The model agent turns use; none: `POST /api/sessions/:id/turns` says how to configure one. */
  readonly model: (ResolvedModel & { readonly spec: string }) | undefined
  /** The agent calls run as unless a session or request names another. */
  readonly agent: string
  readonly version: string
  readonly heartbeatMs: number | undefined
}
