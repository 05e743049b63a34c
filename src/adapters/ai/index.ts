// The AI SDK adapter: toolbelt's tools as an AI SDK tool set, the stream processor that records
// tool parts, history replay, and the agent loop behind `toolbelt run`.

export { type CallEntry, type CallPhase, Calls } from "./calls.ts"
export { sessionHistory } from "./history.ts"
export {
  DEFAULT_STEPS,
  defaultInstructions,
  MAX_STEPS_PROMPT,
  type RunTurnOptions,
  runTurn,
  type TurnResult,
  type TurnStatus,
} from "./loop.ts"
export { acceptsToolMedia, modelOutput } from "./model-output.ts"
export { CLEANUP_GRACE_MS, type ProcessorOptions, type ProcessResult, StreamProcessor } from "./processor.ts"
export { ModelSpecError, PROVIDERS, type ResolvedModel, resolveModel } from "./provider.ts"
export { INVALID, matchCase, repairToolCall } from "./repair.ts"
export {
  INTERRUPTED_RESULT,
  replayCall,
  replayOutput,
  replayParts,
  replayResult,
  replaySession,
  replayStep,
  type StoredMessage,
  type StoredStep,
} from "./replay.ts"
export {
  preferredModel,
  SAMPLING_MAX_TOKENS,
  SAMPLING_PROVIDER,
  type SamplingBlock,
  type SamplingClient,
  type SamplingMessage,
  type SamplingRequest,
  type SamplingResult,
  samplingModel,
  toSampling,
} from "./sampling-model.ts"
export {
  forProvider,
  type JsonSchema,
  normalizeSchema,
  prepareSchema,
  restoreOptional,
  type SchemaFamily,
  type SchemaTarget,
  schemaFamily,
  strictSchema,
} from "./schema.ts"
export type { ProcessedStep, StepContent } from "./step-log.ts"
export {
  type AISDKTools,
  type ModelObject,
  type ToAISDKToolsOptions,
  ToolCallFailed,
  type ToolOutput,
  toAISDKTools,
} from "./tools.ts"
