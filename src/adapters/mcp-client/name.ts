import { createSha256 } from "../../platform/util/sha256.ts"

/** The longest tool name toolbelt registers (`^[A-Za-z][A-Za-z0-9_-]{0,63}$`). */
export const MAX_NAME = 64

const HASH = 8

/** Every character outside `[A-Za-z0-9_-]` becomes `_` (opencode's rule). */
export function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_")
}

/**
 * The registered name of a server's tool, which is also its permission key: `<server>_<tool>`,
 * sanitised; prefixed with `mcp_` when it would not start with a letter (a server named `1st`);
 * and, when longer than 64 characters, cut to 55 and ended with `_` and 8 hex digits of the
 * sha256 of the server and tool names as configured, so the short name is stable and two long
 * names that share a beginning still differ.
 */
export function toolName(server: string, tool: string): string {
  let name = `${sanitize(server)}_${sanitize(tool)}`
  if (!/^[A-Za-z]/.test(name)) name = `mcp_${name}`
  if (name.length <= MAX_NAME) return name
  return `${name.slice(0, MAX_NAME - HASH - 1)}_${shortHash(`${server}\0${tool}`)}`
}

/**
 * Registered names for all of a server's tools. Two tools that sanitise to the same name (`a.b`
 * and `a_b`) both stay callable: the one listed later gets a hash-suffixed name instead.
 */
export function toolNames(server: string, tools: readonly string[]): Map<string, string> {
  const out = new Map<string, string>()
  const taken = new Set<string>()
  for (const tool of tools) {
    let name = toolName(server, tool)
    if (taken.has(name)) {
      const suffix = `_${shortHash(`${server}\0${tool}`)}`
      name = `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`
    }
    taken.add(name)
    out.set(tool, name)
  }
  return out
}

function shortHash(text: string): string {
  return createSha256().update(text).digest("hex").slice(0, HASH)
}
