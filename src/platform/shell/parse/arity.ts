/**
 * Command arity: how many words name "the command" for an "always" approval.
 * (A command whose arguments carry the risk, `risky-arguments.ts`, saves its whole text instead.)
 *
 * `ARITY` (in `arity-table.ts`, with the other tables) maps a command (its name, or its name and
 * subcommands) to the number of words that name it: `ls` 1 (`ls -la` → `ls *`), `git` 2
 * (`git log --oneline` → `git log *`), `npm run` 3 (`npm run dev` → `npm run dev *`), `docker compose` 3
 * (`docker compose up -d` → `docker compose up *`).
 * The longest entry that matches the command's words wins; a command not in the table has arity 1.
 *
 * Flags (decided; opencode counts them, so `git -C x status` gives the too-broad `git -C *`):
 * - Words are counted from the command name and its subcommands only. Flags before or between
 *   subcommands do not count, and neither do the values of the flags a tool is known to take
 *   (`FLAGS`, e.g. git's `-C <path>`), nor a purely numeric token after a flag (`make -j 4 test`).
 * - Skipped flags stay in the prefix, verbatim, so that the "always" pattern matches the command it came
 *   from: `git -C x log --oneline` → `git -C x log *` (a `git log *` rule could never match the text
 *   `git -C x log …`, and `git -C *` would allow every git subcommand in any repository).
 * - Flags after the last counted word are not part of the prefix: `ls -la` → `ls *`.
 * - Some flags introduce what is in effect the subcommand and count as one word with their value
 *   (`WORD_FLAGS`): `python -m pytest -x` → `python -m pytest *`, `node -e <code>` → `node -e <code> *`.
 * - After `--`, nothing more is treated as a flag.
 * - When the words run out before the arity is reached, the prefix is every token
 *   (`git --version` → `git --version *`, never `git *`).
 * - A token whose value the scan cannot know (`$SUB`) counts as a word and ends the lookup.
 * - Lookup uses the command's basename with a trailing version stripped when needed
 *   (`/usr/bin/python3.12` looks up `python`).
 */

import { ARITY, ASSIGNMENT_OPTIONS, FLAGS, PLUS_OPTIONS, WORD_FLAGS } from "./arity-table.ts"

/** Every proper prefix of a multi-word table key, so the lookup knows when a longer key may follow. */
const PARTIAL_KEYS: ReadonlySet<string> = (() => {
  const partial = new Set<string>()
  for (const key of Object.keys(ARITY)) {
    const words = key.split(" ")
    for (let end = 1; end < words.length; end++) partial.add(words.slice(0, end).join(" "))
  }
  return partial
})()

/** The name the tables know a command by: its basename, with a trailing version removed if needed. */
export function toolName(command: string): string {
  const base = command.slice(command.lastIndexOf("/") + 1)
  if (base in ARITY || base in FLAGS || base in WORD_FLAGS) return base
  const unversioned = base.replace(/-?[0-9][0-9.]*$/, "")
  if (unversioned !== "" && (unversioned in ARITY || unversioned in WORD_FLAGS)) return unversioned
  return base
}

/**
 * How many of `words` (the command name first, then its arguments, quotes removed; an argument whose value
 * is unknown is given as its source text) form the "always" prefix. Always at least 1 for a non-empty list.
 */
export function prefixLength(words: readonly string[]): number {
  return lookup(words).length
}

/**
 * The table key a command was named by: its tool name and the subcommand words the prefix counted, without
 * flags (`git -C x push --force` → `["git", "push"]`, `/bin/rm -rf x` → `["rm"]`). Empty for no words.
 */
export function commandKey(words: readonly string[]): string[] {
  return lookup(words).key
}

function lookup(words: readonly string[]): { length: number; key: string[] } {
  if (words.length === 0) return { length: 0, key: [] }
  const tool = toolName(words[0]!)
  const valueFlags = FLAGS[tool] ?? []
  const wordFlags = WORD_FLAGS[tool] ?? []
  const key = [tool]
  // endAt[k]: the token count once k words are taken.
  const endAt = [0, 1]
  let best = ARITY[tool] ?? 1
  let options = true
  let i = 1
  while (i < words.length && (key.length < best || PARTIAL_KEYS.has(key.join(" ")))) {
    // Skip the flags before the next word.
    let word: string | undefined
    while (i < words.length) {
      const token = words[i]!
      if (options && token === "--") {
        options = false
        i++
        continue
      }
      if (options && wordFlags.includes(token) && i + 1 < words.length) {
        word = `${token} ${words[i + 1]}`
        i += 2
        break
      }
      if (options && isOption(tool, token)) {
        i++
        if (i < words.length && (takesValue(valueFlags, token) || /^[0-9]+$/.test(words[i]!))) i++
        continue
      }
      word = token
      i++
      break
    }
    if (word === undefined) break
    key.push(word)
    endAt[key.length] = i
    const arity = ARITY[key.join(" ")]
    if (arity !== undefined) best = arity
  }
  if (key.length < best) return { length: words.length, key }
  return { length: endAt[best]!, key: key.slice(0, best) }
}

/** The prefix words themselves: `prefix(["git", "log", "-5"])` is `["git", "log"]`. */
export function prefix(words: readonly string[]): string[] {
  return words.slice(0, prefixLength(words))
}

function isOption(tool: string, token: string): boolean {
  if (token.length > 1 && token.startsWith("-")) return true
  if (token.length > 1 && token.startsWith("+") && PLUS_OPTIONS.has(tool)) return true
  return ASSIGNMENT_OPTIONS.has(tool) && /^[A-Za-z_][A-Za-z0-9_]*=/.test(token)
}

function takesValue(valueFlags: readonly string[], token: string): boolean {
  return !token.includes("=") && valueFlags.includes(token)
}
