// Platform: file search for the glob and grep tools (ripgrep, or the in-process fallback).
export {
  DEFAULT_TIMEOUT_MS,
  type FileEntry,
  type FilesOptions,
  type FilesResult,
  type GrepFile,
  type GrepLine,
  type GrepMode,
  type GrepOptions,
  type GrepResult,
  type SearchBackend,
  SearchError,
  SearchPatternError,
  type WalkOptions,
} from "./backend.ts"
export { FallbackBackend, type FallbackOptions } from "./fallback.ts"
export { RipgrepBackend } from "./ripgrep.ts"
export { type BackendChoice, type BackendName, listingBackend, searchBackend, which } from "./select.ts"
export { type SearchSettings, searchSettings } from "./settings.ts"
