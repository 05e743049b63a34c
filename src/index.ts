// toolbelt's public API.

export { DEFAULT_LIMITS, type Limits } from "./output/limits.ts"
export { OutputStore } from "./output/store.ts"
export {
  PermissionCorrectedError,
  PermissionDeniedError,
  PermissionNotFoundError,
  PermissionRejectedError,
  PermissionUnansweredError,
} from "./permission/errors.ts"
export type { Action, Rule, Ruleset } from "./permission/rule.ts"
export type { AskRequest, PermissionService } from "./permission/service.ts"
export { RegistrationError } from "./registry/name.ts"
export { type Advertised, Registry, type ToolsQuery, type Turn } from "./registry/registry.ts"
export { type Entry, type Handle, type Placement, type Registrable, ToolSet } from "./registry/tool-set.ts"
export type { ToolPart, ToolState } from "./session/part.ts"
export { type CallRequest, type PartSink, type SettleDeps, type Settlement, settle } from "./settle/settle.ts"
export type { FilePart, ModelContent } from "./tool/content.ts"
export type { AskInput, Context, InitContext, Result } from "./tool/context.ts"
export { ToolFailure } from "./tool/failure.ts"
export * as Tool from "./tool/index.ts"
export { type CallInput, createToolbelt, type Toolbelt, type ToolbeltOptions } from "./toolbelt/toolbelt.ts"
export { builtins } from "./tools/index.ts"
