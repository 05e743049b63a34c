// Output bounding and the managed output store: what the model sees of a large tool result, and where the rest goes.
export { type Cut, type CutOptions, cut } from "./cut.ts"
export { defaultDataDir, outputDir } from "./data-dir.ts"
export { type HintOptions, hint, type Pager, pagesOf, type ReadRestOptions, readRest } from "./hint.ts"
export { DEFAULT_LIMITS, type Direction, type Limits, type LimitsConfig, resolveLimits } from "./limits.ts"
export { newOutputId, OUTPUT_PREFIX, timestampOf } from "./output-id.ts"
export { findSignals, type Region, SIGNAL_CAPS, type Signal } from "./signals.ts"
export { DEFAULT_MAX_AGE_MS, OutputStore, type SweeperOptions, type SweepOptions } from "./store.ts"
export { type Truncated, type TruncateOptions, truncate } from "./truncate.ts"
