// What a project would run, as one hash: a change to any file behind a contribution changes it.

import { createHash } from "node:crypto"
import { readFile } from "node:fs/promises"

/**
 * sha256 over the files' paths and contents, sorted by path (each once). A file that cannot be read
 * hashes as its path and the error code, so a file turning unreadable still changes the fingerprint.
 */
export async function fingerprintFiles(files: Iterable<string>): Promise<string> {
  const hash = createHash("sha256")
  for (const file of [...new Set(files)].sort()) {
    let content: Buffer
    try {
      content = await readFile(file)
    } catch (error) {
      content = Buffer.from(`\0unreadable:${(error as NodeJS.ErrnoException).code ?? "error"}`)
    }
    // Lengths first, so no two different lists of files can produce the same byte stream.
    hash.update(`${Buffer.byteLength(file)}:${file}\0${content.length}:`)
    hash.update(content)
  }
  return hash.digest("hex")
}
