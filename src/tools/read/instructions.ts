import { open } from "node:fs/promises"
import { dirname, join } from "node:path"
import { isFile } from "../../platform/fs/file-type.ts"
import { contains } from "../kit/external-directory.ts"
import type { Instruction } from "./format.ts"

/** The instruction files a directory may hold, in order of preference: the first one found counts. */
export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"] as const

/** Instruction files are attached up to this size; the rest is left to an explicit read. */
export const MAX_INSTRUCTION_BYTES = 50 * 1024

export interface InstructionOptions {
  /** The file being read (absolute). */
  readonly file: string
  /** The project root: its own instruction file is the host's business (the system prompt), not read's. */
  readonly root: string
  /** True the first time this session sees `key`: each file is attached once per session. */
  readonly firstTime: (key: string) => boolean
}

/**
 * The instruction files that apply to `file` and that this session has not seen yet, nearest first.
 *
 * 1. Walk up from the file's directory to the project root, the root itself excluded; nothing for a
 *    file outside the project.
 * 2. In each directory the first of `AGENTS.md`, `CLAUDE.md` that is a file is that directory's
 *    instructions. When it is the file being read, it is marked as seen (the model is reading it).
 * 3. Attach it when `firstTime` says the session has not seen it, up to 50 KB (with a note when cut).
 */
export async function findInstructions(options: InstructionOptions): Promise<Instruction[]> {
  const { file, root } = options
  const found: Instruction[] = []
  for (let dir = dirname(file); dir !== root && contains(root, dir); dir = dirname(dir)) {
    for (const name of INSTRUCTION_FILES) {
      const path = join(dir, name)
      if (!isFile(path)) continue
      if (options.firstTime(keyOf(path)) && path !== file) {
        const content = await readCapped(path)
        if (content !== undefined) found.push({ path, content })
      }
      break
    }
    if (dirname(dir) === dir) break
  }
  return found
}

/** The `firstTime` key of an instruction file. */
export function keyOf(path: string): string {
  return `instructions:${path}`
}

async function readCapped(path: string): Promise<string | undefined> {
  try {
    const handle = await open(path, "r")
    try {
      const { size } = await handle.stat()
      const buffer = Buffer.alloc(Math.min(size, MAX_INSTRUCTION_BYTES))
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
      let text = buffer.toString("utf8", 0, bytesRead).replace(/^\uFEFF/, "")
      // A multi-byte character cut at the end decodes as U+FFFD: drop it.
      if (size > bytesRead)
        text = `${text.replace(/\uFFFD$/, "")}\n... (cut at 50 KB of ${size} bytes; read ${path} for the rest)`
      return text.trimEnd()
    } finally {
      await handle.close()
    }
  } catch {
    return undefined
  }
}
