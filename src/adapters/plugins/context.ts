// The context a user's tool gets: toolbelt's call context in the shapes opencode's tools and the spec's
// example call it. The spec's custom tool reports progress as `ctx.metadata({ progress: 50 })` (the
// fields themselves), opencode's tools as `ctx.metadata({ title, metadata })`; both must reach the call.
import type * as Tool from "../../runtime/tool/index.ts"
import type { ToolContext } from "./index.ts"

/** Where the call runs, when the call's services do not say (a toolbelt built without them). */
export interface ContextPlace {
  readonly directory: string
  readonly worktree: string
}

/**
 * A user tool's context: the call's context, plus `directory` and `worktree` (the call's services', else
 * `place`'s), `metadata` in both shapes, and `ask` with `patterns` optional.
 */
export function pluginContext(ctx: Tool.Context, place?: ContextPlace): ToolContext & Tool.Context {
  const extra = ctx.extra
  return {
    sessionID: ctx.sessionID,
    messageID: ctx.messageID,
    agent: ctx.agent,
    callID: ctx.callID,
    abort: ctx.abort,
    extra,
    messages: ctx.messages,
    directory: typeof extra.directory === "string" ? extra.directory : (place?.directory ?? process.cwd()),
    worktree: typeof extra.worktree === "string" ? extra.worktree : (place?.worktree ?? process.cwd()),
    metadata: (input) => ctx.metadata(metadataUpdate(input)),
    ask: (input) =>
      ctx.ask({
        permission: input.permission,
        patterns: input.patterns ?? [],
        ...(input.always ? { always: input.always } : {}),
        ...(input.metadata ? { metadata: input.metadata } : {}),
      }),
  }
}

/**
 * A progress update as the runtime takes it. `{ title?, metadata? }` is passed as it is; any other field
 * (the spec's `{ progress: 50 }`) is progress metadata, merged over `metadata` when both are given.
 */
export function metadataUpdate(input: unknown): Tool.MetadataUpdate {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return {}
  const { title, metadata, ...fields } = input as Record<string, unknown>
  const own =
    typeof metadata === "object" && metadata !== null && !Array.isArray(metadata) ? metadata : undefined
  const merged = Object.keys(fields).length ? { ...own, ...fields } : own
  return {
    ...(typeof title === "string" ? { title } : {}),
    ...(merged ? { metadata: merged as Record<string, unknown> } : {}),
  }
}
