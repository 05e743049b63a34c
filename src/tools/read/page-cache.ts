import { VersionCache } from "../../platform/fs/version-cache.ts"

/** A file page as the read tool returns it, before the session's instruction files are added. */
export interface TextPage {
  /** The formatted page: `<path>`, `<type>`, `<content>` with numbered lines and the footer. */
  readonly output: string
  readonly preview: string
  readonly truncated: boolean
  readonly totalLines: number
  /** SHA-256 of the whole file: the read ledger's stamp. */
  readonly hash: string
}

/** Pages kept; a page is at most the 50 KB read budget plus its frame, so a few MB at most. */
export const MAX_PAGES = 64

/**
 * The pages of small files read recently, by file version, page and path. Agents read the same
 * unchanged files again and again (after a compaction, from subagents, to check before an edit); a
 * page whose file still has the same version is served without reading, decoding, numbering or
 * hashing the file again. Shared by every session: a page depends on the file, never on the reader.
 */
export const recentPages = new VersionCache<TextPage>(MAX_PAGES)

/** The cache key of a page of `path` beside the file's version. */
export function pageKey(path: string, offset: number, limit: number): string {
  return `${offset}:${limit}:${path}`
}
