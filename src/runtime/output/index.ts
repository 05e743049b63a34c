// Output bounding and the managed output store: what the model sees of a large tool result, and where the rest goes.

export { defaultDataDir, outputDir } from "../../platform/fs/data-dir.ts"
export { newOutputId, OUTPUT_PREFIX, timestampOf } from "../../platform/fs/output-id.ts"
export { type Cut, type CutOptions, cut } from "../../platform/text/cut.ts"
export {
  type HintOptions,
  hint,
  type Pager,
  pagesOf,
  type ReadRestOptions,
  readRest,
} from "../../platform/text/hint.ts"
export {
  DEFAULT_LIMITS,
  type Direction,
  type Limits,
  type LimitsConfig,
  resolveLimits,
} from "../../platform/text/limits.ts"
export { findSignals, type Region, SIGNAL_CAPS, type Signal } from "../../platform/text/signals.ts"
export { type OpenedOutput, OUTPUT_ID } from "./shared.ts"
export { DEFAULT_MAX_AGE_MS, OutputStore, type SweeperOptions, type SweepOptions } from "./store.ts"
export { type Truncated, type TruncateOptions, truncate } from "./truncate.ts"
