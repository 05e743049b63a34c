// The keys toolbelt's own config files may hold: a key that is none of them is reported (once, naming
// it and its file, with the known key it is closest to), never dropped without a word. Also the one
// alias toolbelt reads: opencode's `experimental.batch_tool` for `batch`.

import { ConfigError } from "./config-error.ts"

/**
 * Every top-level key toolbelt (or something it loads) reads from `toolbelt.json(c)`, with what it is.
 * A module that reads a new key adds it here, or its users are told the key is unknown.
 */
export const KNOWN_KEYS: Readonly<Record<string, string>> = {
  $schema: "the JSON schema an editor checks the file against",
  permission: "permission rules for every agent",
  permission_sources: 'other agents\' configs whose allows apply too (["opencode"])',
  agent: "agents: their settings and rules",
  plugin: "plugin modules to load",
  mcp: "MCP servers to use, and toolbelt's MCP server's settings",
  lsp: "language servers",
  tool_output: "output bounds (max_lines, max_bytes)",
  tool_search: "deferring tools past a budget: auto, on, off",
  tool_search_budget: "tokens of definitions offered up front",
  tool_search_rerank: "rerank tool search with the session's model",
  store: "a PostgreSQL URL for the records",
  shell: "the shell bash runs commands in, and its sandbox",
  file: "file settings (require_read, lock_wait_ms)",
  webfetch: "webfetch's address guard",
  websearch: "websearch's provider",
  codesearch: "codesearch's provider",
  batch: "offer the batch tool",
  experimental: "opencode's experimental flags (batch_tool)",
  doom_loop: "the loop guard's threshold",
  subagent_depth: "how deeply subagents nest",
  background_subagents: "subagents that run in the background",
}

/** Sections whose keys are fixed too: a key inside them that is not listed is reported as well. */
const SECTION_KEYS: Readonly<Record<string, readonly string[]>> = {
  experimental: ["batch_tool"],
  tool_output: ["max_lines", "max_bytes"],
}

/** One config file's value, as read (`ConfigFile` of `config.ts`). */
interface FileValue {
  readonly file: string
  readonly value: Readonly<Record<string, unknown>>
}

/** A key of toolbelt's own config that nothing reads. */
export interface UnknownKey {
  readonly file: string
  /** The key as a path: `tool_serch`, `experimental.foo`. */
  readonly key: string
  /** The known key it is closest to, when one is close. */
  readonly suggestion?: string
  /** `<file>: unknown key \`<key>\` (did you mean \`<known>\`?) — ignored` */
  readonly message: string
}

/**
 * The unknown keys of toolbelt's own config files, file by file in the order given: the top-level keys
 * outside `KNOWN_KEYS`, and the keys of a fixed section (`experimental`, `tool_output`) outside it.
 */
export function unknownKeys(files: readonly FileValue[]): UnknownKey[] {
  const out: UnknownKey[] = []
  const report = (file: string, key: string, known: readonly string[], prefix = "") => {
    const suggestion = closest(key, known)
    const path = `${prefix}${key}`
    out.push({
      file,
      key: path,
      ...(suggestion === undefined ? {} : { suggestion: `${prefix}${suggestion}` }),
      message: `${file}: unknown key \`${path}\`${suggestion === undefined ? "" : ` (did you mean \`${prefix}${suggestion}\`?)`} — ignored`,
    })
  }
  const topLevel = Object.keys(KNOWN_KEYS)
  for (const { file, value } of files) {
    for (const [key, inner] of Object.entries(value)) {
      if (!(key in KNOWN_KEYS)) {
        report(file, key, topLevel)
        continue
      }
      const fixed = SECTION_KEYS[key]
      if (!fixed || typeof inner !== "object" || inner === null || Array.isArray(inner)) continue
      for (const name of Object.keys(inner)) if (!fixed.includes(name)) report(file, name, fixed, `${key}.`)
    }
  }
  return out
}

/**
 * The known key a person most likely meant: the same but for case, `-` for `_`, or within a small edit
 * distance (one edit per four letters, at least one), the nearest first; undefined when none is close.
 */
export function closest(key: string, known: readonly string[]): string | undefined {
  const plain = (text: string) => text.toLowerCase().replaceAll("-", "_")
  const same = known.find((candidate) => plain(candidate) === plain(key))
  if (same !== undefined) return same
  let best: { key: string; distance: number } | undefined
  for (const candidate of known) {
    const distance = editDistance(plain(key), plain(candidate))
    const allowed = Math.max(1, Math.floor(Math.max(key.length, candidate.length) / 4))
    if (distance <= allowed && (!best || distance < best.distance)) best = { key: candidate, distance }
  }
  return best?.key
}

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/**
 * One file's value with its aliases resolved: `experimental.batch_tool` (opencode's flag, as the spec
 * writes it) sets `batch` when the file does not set `batch` itself. A value that is not true or false
 * is a `ConfigError` naming the key.
 */
export function withAliases<T extends Readonly<Record<string, unknown>>>(
  value: T,
): T & { readonly batch?: unknown } {
  const experimental = value.experimental
  if (typeof experimental !== "object" || experimental === null || Array.isArray(experimental)) return value
  const flag = (experimental as Record<string, unknown>).batch_tool
  if (flag === undefined) return value
  if (typeof flag !== "boolean")
    throw new ConfigError(
      `Invalid config: "experimental.batch_tool" is ${JSON.stringify(flag)}; it takes true or false (the same as "batch").`,
    )
  return value.batch === undefined ? { ...value, batch: flag } : value
}
