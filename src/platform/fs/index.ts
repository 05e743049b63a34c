// The platform the file tools stand on: atomic writes, per-file locks, text helpers, paged reading of
// files of any size, and the read ledger for read-before-write.
export { type RenameOptions, renameAtomic, type WriteOptions, writeFileAtomic } from "./atomic-write.ts"
export { canonicalPath } from "./canonical-path.ts"
export { errorCode, FileSystemError, isAbortError } from "./errors.ts"
export { type LockOptions, lockedFileCount, withFileLock, withFileLocks } from "./lock.ts"
export { lineCutMarker } from "./page-collector.ts"
export { type ReadLastLinesOptions, type ReadLastLinesResult, readLastLines } from "./read-last-lines.ts"
export {
  checkFresh,
  type FileStamp,
  type Freshness,
  fileStamp,
  hashFile,
  type LedgerEntry,
  MemoryReadLedger,
  type ReadLedger,
  recordStamp,
} from "./read-ledger.ts"
export { clearLineIndexCache, countLines, readLines } from "./read-lines.ts"
export { DEFAULT_READ_LIMITS, type ReadLinesOptions, type ReadLinesResult } from "./read-lines-page.ts"
export {
  applyLineEnding,
  BOM,
  type Bom,
  type BomEncoding,
  detectBom,
  detectLineEnding,
  hashContent,
  isProbablyBinary,
  type LineEnding,
  type Media,
  normalizeToLf,
  SNIFF_BYTES,
  sniffMedia,
  splitBom,
  stripBom,
  withBom,
} from "./text.ts"
