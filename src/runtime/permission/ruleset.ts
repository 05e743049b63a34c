import type { Rule, Ruleset } from "./rule.ts"
import { compile, literalPrefix, literalSuffix, type Matcher, type MatchOptions, match } from "./wildcard.ts"

/**
 * Permissions whose patterns are file paths: their patterns fold `\` to `/` (Windows paths). Every other
 * permission (`bash` first of all) matches its patterns byte for byte.
 */
export const PATH_PERMISSIONS: ReadonlySet<string> = new Set(["read", "edit", "list", "external_directory"])

/** Tools that share one permission key (opencode: the file-changing tools all ask `edit`). */
const TOOL_PERMISSION: Readonly<Record<string, string>> = {
  edit: "edit",
  write: "edit",
  apply_patch: "edit",
  multiedit: "edit",
}

/** The permission key a tool asks under. */
export function permissionOf(tool: string): string {
  return TOOL_PERMISSION[tool] ?? tool
}

/** Concatenates rulesets: later rules win over earlier ones. */
export function merge(...rulesets: readonly Ruleset[]): Rule[] {
  return rulesets.flat()
}

/**
 * The rule that decides `permission` on `pattern`: the last matching rule of the concatenated rulesets,
 * or `{permission, pattern: "*", action: "ask"}` when none matches.
 */
export function evaluate(permission: string, pattern: string, ...rulesets: readonly Ruleset[]): Rule {
  return lastMatch(permission, pattern, rulesets) ?? { permission, pattern: "*", action: "ask" }
}

/** The last matching rule of the concatenated rulesets, if any. */
export function lastMatch(
  permission: string,
  pattern: string,
  rulesets: readonly Ruleset[],
  options: { ignoreCase?: boolean } = {},
): Rule | undefined {
  for (let i = rulesets.length - 1; i >= 0; i--) {
    const found = compiled(rulesets[i]!, options).last(permission, pattern)
    if (found) return found
  }
  return undefined
}

/**
 * The tools to hide from the model: those whose last rule for their permission (pattern ignored) is
 * `* deny`. `bash: {"*": "deny", "git *": "allow"}` keeps bash visible.
 */
export function disabled(tools: Iterable<string>, ruleset: Ruleset): Set<string> {
  const hidden = new Set<string>()
  for (const tool of tools) {
    const permission = permissionOf(tool)
    let last: Rule | undefined
    for (let i = ruleset.length - 1; i >= 0; i--) {
      if (match(permission, ruleset[i]!.permission)) {
        last = ruleset[i]
        break
      }
    }
    if (last && last.pattern === "*" && last.action === "deny") hidden.add(tool)
  }
  return hidden
}

/** Rules whose permission key matches `permission` (for a denial's explanation). */
export function relevantRules(permission: string, ...rulesets: readonly Ruleset[]): Rule[] {
  return rulesets.flat().filter((rule) => match(permission, rule.permission))
}

// --- the compiled index -------------------------------------------------------------------------
//
// Evaluation must stay cheap with thousands of rules (the bench's goal: under 5 µs at 1,000 rules). A
// ruleset is compiled once (cached by identity: rulesets are treated as immutable). For each permission
// asked about, the rules whose permission key matches it are indexed by the literal text their pattern
// must start with (a trie: `git push *` under g-i-t-space-p-u-s-h), or else by the literal text it must
// end with (a trie walked from the end: `*.env` under v-n-e-.); the rest (`*`, `*foo*`) are scanned.
// Only rules on the input's paths through the tries can match; each list is scanned from its last rule
// down, stopping at the best index found so far, so the last matching rule wins as in a plain scan.

interface Entry {
  readonly index: number
  readonly rule: Rule
  readonly test: Matcher
}

interface TrieNode {
  readonly rules: Entry[]
  children: Map<number, TrieNode> | undefined
}

interface PermissionIndex {
  /** Rules with no literal prefix or suffix. */
  readonly scan: Entry[]
  readonly prefixes: TrieNode
  readonly suffixes: TrieNode
}

const PER_PERMISSION_LIMIT = 512

/** A ruleset compiled for fast last-match evaluation. */
export class CompiledRuleset {
  readonly rules: Ruleset
  /** The length and last rule when compiled: a ruleset that grew or shrank since is compiled again. */
  readonly length: number
  readonly lastRule: Rule | undefined
  readonly #ignoreCase: boolean
  readonly #byPermission = new Map<string, PermissionIndex>()

  constructor(rules: Ruleset, options: { ignoreCase?: boolean } = {}) {
    this.rules = [...rules]
    this.length = rules.length
    this.lastRule = rules.at(-1)
    this.#ignoreCase = options.ignoreCase ?? process.platform === "win32"
  }

  /** The last rule matching both `permission` and `pattern`. */
  last(permission: string, pattern: string): Rule | undefined {
    const index = this.#index(permission)
    const paths = PATH_PERMISSIONS.has(permission)
    const ignoreCase = this.#ignoreCase
    let best = scan(index.scan, pattern, undefined)

    let node: TrieNode | undefined = index.prefixes
    for (let at = 0; node; ) {
      best = scan(node.rules, pattern, best)
      if (!node.children || at >= pattern.length) break
      node = node.children.get(foldCode(pattern.charCodeAt(at++), paths, ignoreCase))
    }

    node = index.suffixes
    for (let at = pattern.length - 1; node; ) {
      best = scan(node.rules, pattern, best)
      if (!node.children || at < 0) break
      node = node.children.get(foldCode(pattern.charCodeAt(at--), paths, ignoreCase))
    }
    return best?.rule
  }

  #index(permission: string): PermissionIndex {
    const cached = this.#byPermission.get(permission)
    if (cached) return cached
    const options: MatchOptions = { ignoreCase: this.#ignoreCase, paths: PATH_PERMISSIONS.has(permission) }
    const index: PermissionIndex = {
      scan: [],
      prefixes: { rules: [], children: undefined },
      suffixes: { rules: [], children: undefined },
    }
    for (let i = 0; i < this.rules.length; i++) {
      const rule = this.rules[i]!
      if (!match(permission, rule.permission, { ignoreCase: this.#ignoreCase })) continue
      const entry = { index: i, rule, test: compile(rule.pattern, options) }
      const prefix = literalPrefix(rule.pattern, options)
      if (prefix) {
        insert(index.prefixes, prefix, false).rules.push(entry)
        continue
      }
      const suffix = literalSuffix(rule.pattern, options)
      if (suffix) insert(index.suffixes, suffix, true).rules.push(entry)
      else index.scan.push(entry)
    }
    if (this.#byPermission.size >= PER_PERMISSION_LIMIT) this.#byPermission.clear()
    this.#byPermission.set(permission, index)
    return index
  }
}

/** The best of `best` and the last entry of `entries` (ascending by index) that matches. */
function scan(entries: readonly Entry[], pattern: string, best: Entry | undefined): Entry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!
    if (best && entry.index <= best.index) return best
    if (entry.test(pattern)) return entry
  }
  return best
}

function insert(root: TrieNode, text: string, reversed: boolean): TrieNode {
  let node = root
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(reversed ? text.length - 1 - i : i)
    node.children ??= new Map()
    let child = node.children.get(code)
    if (!child) {
      child = { rules: [], children: undefined }
      node.children.set(code, child)
    }
    node = child
  }
  return node
}

/** One input character as the tries compare it: `\` as `/` for paths, A-Z lower-cased when ignoring case. */
function foldCode(code: number, paths: boolean, ignoreCase: boolean): number {
  if (paths && code === 92) return 47
  if (ignoreCase && code >= 65 && code <= 90) return code + 32
  return code
}

const compiledCache = new WeakMap<Ruleset, { ignoreCase: boolean | undefined; compiled: CompiledRuleset }[]>()

/**
 * The compiled form of a ruleset, cached by identity. Rulesets are meant to be immutable; one that grew or
 * shrank (or whose last rule changed) since it was compiled is compiled again.
 */
export function compiled(rules: Ruleset, options: { ignoreCase?: boolean } = {}): CompiledRuleset {
  let variants = compiledCache.get(rules)
  if (!variants) {
    variants = []
    compiledCache.set(rules, variants)
  }
  let found = variants.find((variant) => variant.ignoreCase === options.ignoreCase)
  if (found && (found.compiled.length !== rules.length || found.compiled.lastRule !== rules.at(-1))) {
    variants.splice(variants.indexOf(found), 1)
    found = undefined
  }
  if (!found) {
    found = { ignoreCase: options.ignoreCase, compiled: new CompiledRuleset(rules, options) }
    variants.push(found)
  }
  return found.compiled
}
