// toolbelt's public API.

// First, before any other module runs: on a Node without node:sqlite this throws one line naming the
// Node to use, instead of the ERR_UNKNOWN_BUILTIN_MODULE some module deeper in would meet.
import "./platform/store/node-sqlite.ts"

export {
  type CallInput,
  createToolbelt,
  type PermissionReplies,
  type QuestionReplies,
  type Toolbelt,
  type ToolbeltOptions,
} from "./compose/toolbelt.ts"
export type { ToolPart, ToolState } from "./platform/store/part.ts"
export type { FilePart, ModelContent } from "./platform/text/content.ts"
export { DEFAULT_LIMITS, type Limits } from "./platform/text/limits.ts"
// What `toolbelt.subscribe` hands its subscribers.
export type { AnyEvent, Handler, SubscribeOptions, Subscription } from "./runtime/bus/bus.ts"
export type { Event, Events, EventType } from "./runtime/bus/events.ts"
export { OutputStore } from "./runtime/output/store.ts"
export {
  LoopGuardError,
  PermissionCorrectedError,
  PermissionDeniedError,
  PermissionNotFoundError,
  PermissionRejectedError,
  PermissionUnansweredError,
  PermissionWithdrawnError,
} from "./runtime/permission/errors.ts"
export type { PermissionReply, PermissionReplyKind, PermissionRequest } from "./runtime/permission/request.ts"
export type { Action, Rule, Ruleset } from "./runtime/permission/rule.ts"
export type { AskRequest, PermissionService } from "./runtime/permission/service.ts"
export {
  QuestionAnswerError,
  QuestionNotFoundError,
  QuestionRejectedError,
  QuestionUnansweredError,
} from "./runtime/question/errors.ts"
export type {
  AnswerQuestions,
  Answers,
  Question,
  QuestionOption,
  QuestionReply,
  QuestionRequest,
} from "./runtime/question/question.ts"
export { QuestionService } from "./runtime/question/service.ts"
export { RegistrationError } from "./runtime/registry/name.ts"
export { type Advertised, Registry, type ToolsQuery, type Turn } from "./runtime/registry/registry.ts"
export {
  type Entry,
  type Handle,
  type Placement,
  type Registrable,
  ToolSet,
} from "./runtime/registry/tool-set.ts"
export {
  type CallRequest,
  type PartSink,
  type SettleDeps,
  type Settlement,
  settle,
} from "./runtime/settle/settle.ts"
export type { AskInput, Context, InitContext, Result } from "./runtime/tool/context.ts"
export { ToolFailure } from "./runtime/tool/failure.ts"
export * as Tool from "./runtime/tool/index.ts"
// The service the task tool reaches subagents through, for hosts that run their own agent loop.
export type * from "./runtime/tool/subagent-services.ts"
export { builtins } from "./tools/index.ts"
