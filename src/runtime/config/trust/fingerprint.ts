// What a project would run, as one hash: a change to any file behind a contribution changes it.

import { readFileSync } from "node:fs"
import { createSha256 } from "../../../platform/util/sha256.ts"

/** sha256 of zero bytes. */
export const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/**
 * sha256 over the files' paths and contents, sorted by path (each once). A file that cannot be read
 * hashes as its path and the error code, so a file turning unreadable still changes the fingerprint.
 */
export async function fingerprintFiles(files: Iterable<string>): Promise<string> {
  const sorted = [...new Set(files)].sort()
  // Most projects contribute nothing: their fingerprint is the hash of no bytes, known without loading
  // node:crypto (a few ms of every start-up).
  if (sorted.length === 0) return EMPTY_SHA256
  const hash = createSha256()
  for (const file of sorted) {
    let content: Buffer
    try {
      content = readFileSync(file)
    } catch (error) {
      content = Buffer.from(`\0unreadable:${(error as NodeJS.ErrnoException).code ?? "error"}`)
    }
    // Lengths first, so no two different lists of files can produce the same byte stream.
    hash.update(`${Buffer.byteLength(file)}:${file}\0${content.length}:`)
    hash.update(content)
  }
  return hash.digest("hex")
}
