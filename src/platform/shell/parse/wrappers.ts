import { toolName } from "./arity.ts"
import { MULTICALL, PARALLEL_VALUES, SHELLS, WRAPPERS, type WrapperSpec } from "./wrapper-table.ts"

/**
 * Commands that run other commands. The scan treats what they run as a command of its own (its own
 * pattern and "always" prefix, its own file checks), so that approving or allowing the wrapper never
 * approves what it wraps.
 *
 * - `exec`: the tokens `[start, end)` are a command (`sudo rm x` → `rm x`; `find -exec rm {} ;` → `rm {}`).
 * - `script`: the tokens `[from, to)`, joined by spaces, are shell source to parse (`bash -c '…'`, `eval`,
 *   `watch 'ls -l'`, `env -S '…'`, `su -c '…'`, `trap '…' EXIT`).
 * - `stdin`: a shell that reads its commands from standard input (`bash`, `sh -s`, `bash -`).
 */
export type Inner =
  | {
      readonly kind: "exec"
      readonly start: number
      readonly end: number
      readonly via: string
      /** Token whose value is the wrapped command's working directory (`env -C dir`, `direnv exec dir`). */
      readonly chdir?: number
      /** The wrapped command also gets arguments from input (`xargs`). */
      readonly input?: boolean
      /** Text the wrapper replaces with input at run time (`xargs -I X`): words holding it are not known. */
      readonly placeholder?: string
    }
  | {
      readonly kind: "script"
      readonly from: number
      readonly to: number
      readonly via: string
      /** The script starts this many characters into its first token (`env --split-string=…`). */
      readonly prefix?: number
    }
  | {
      readonly kind: "stdin"
      readonly via: string
      /** The shell reads its script from this file descriptor instead (`bash <(…)` reads `/dev/fd/63`). */
      readonly file?: string
    }

/** Reserved words that open a compound command: `coproc NAME` takes a name only before one of these. */
const COMPOUND_OPENERS: ReadonlySet<string> = new Set([
  "{",
  "(",
  "((",
  "[[",
  "if",
  "for",
  "while",
  "until",
  "case",
  "select",
])

/**
 * What `words` (a command's name and arguments: known values, or source text for unknown ones) runs
 * besides itself. Empty when it wraps nothing.
 */
export function unwrap(words: readonly string[]): Inner[] {
  if (words.length === 0) return []
  const name = toolName(words[0]!)
  if (SHELLS.has(name)) return shell(words, name)
  if (MULTICALL.has(name))
    return words.length > 1 ? [{ kind: "exec", start: 1, end: words.length, via: name }] : []
  if (name === "coproc") return coproc(words)
  if (name === "parallel") return parallel(words)
  if (name === "eval")
    return words.length > 1 ? [{ kind: "script", from: 1, to: words.length, via: "eval" }] : []
  if (name === "trap") return trap(words)
  if (name === "watch") return watch(words)
  if (name === "find")
    return findExec(words, { actions: ["-exec", "-execdir", "-ok", "-okdir"], via: "find" })
  if (name === "fd" || name === "fdfind")
    return findExec(words, { actions: ["-x", "--exec", "-X", "--exec-batch"], via: "fd" })
  const sub = words[1] !== undefined ? `${name} ${words[1]}` : undefined
  if (sub !== undefined && WRAPPERS[sub] && !(name in WRAPPERS))
    return wrappedCommand({ words, from: 2, spec: WRAPPERS[sub]!, via: sub })
  const spec = WRAPPERS[name]
  return spec ? wrappedCommand({ words, from: 1, spec, via: name }) : []
}

/** Where a table wrapper's command starts: the words from `from` on are read with the wrapper's `spec`. */
function wrappedCommand({
  words,
  from,
  spec,
  via,
}: {
  readonly words: readonly string[]
  readonly from: number
  readonly spec: WrapperSpec
  readonly via: string
}): Inner[] {
  let chdir: number | undefined
  let placeholder: string | undefined
  let positional = spec.positional ?? 0
  let i = from
  while (i < words.length) {
    const word = words[i]!
    if (word === "--") {
      i++
      break
    }
    if (word.length > 1 && word.startsWith("-")) {
      if (spec.stop?.includes(word)) return []
      if (spec.placeholder) placeholder = impliedPlaceholder(word) ?? placeholder
      const flag = optionTaking(word, [...(spec.value ?? []), ...(spec.script ?? [])])
      if (flag === undefined) {
        i++
        continue
      }
      // The value is the next token, or the text after `=` / the rest of the cluster.
      const inline = flag.inline
      const valueIndex = inline ? i : i + 1
      if (spec.script?.includes(flag.name)) {
        if (inline)
          return [{ kind: "script", from: i, to: i + 1, via, prefix: inlinePrefix(word, flag.name) }]
        if (valueIndex >= words.length) return []
        return [
          { kind: "script", from: valueIndex, to: spec.scriptOnly ? valueIndex + 1 : words.length, via },
        ]
      }
      if (spec.chdir?.includes(flag.name) && !inline) chdir = valueIndex
      if (spec.placeholder?.includes(flag.name))
        placeholder = inline ? word.slice(inlinePrefix(word, flag.name)) : words[valueIndex]
      i = valueIndex + 1
      continue
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      i++
      continue
    }
    if (positional > 0) {
      if (via === "direnv exec") chdir = i
      positional--
      i++
      continue
    }
    // Only a script flag runs anything (`su root -c '…'`): operands before it are skipped.
    if (spec.scriptOnly) {
      i++
      continue
    }
    break
  }
  if (i >= words.length || spec.scriptOnly) return []
  return [
    {
      kind: "exec",
      start: i,
      end: words.length,
      via,
      ...(chdir !== undefined ? { chdir } : {}),
      ...(spec.input ? { input: true } : {}),
      ...(placeholder ? { placeholder } : {}),
    },
  ]
}

/** How many characters of an inline option (`--opt=value`, `-ovalue`) come before its value. */
function inlinePrefix(word: string, name: string): number {
  return word.startsWith("--") ? name.length + 1 : word.indexOf(name[1]!) + 1
}

/** `xargs -i`, `-iR`, `--replace`, `--replace=R`: replace `{}` (or R) in the command with each input line. */
function impliedPlaceholder(word: string): string | undefined {
  if (word === "-i" || word === "--replace") return "{}"
  if (word.startsWith("--replace=")) return word.slice("--replace=".length) || "{}"
  if (/^-i./.test(word)) return word.slice(2)
  return undefined
}

/**
 * Whether `words` run a command that is not written in them, so whatever gives them more arguments
 * (`xargs sh -c`, `xargs sudo`, `xargs env`, `xargs timeout`) chooses the command at run time.
 */
export function awaitsCommand(words: readonly string[]): boolean {
  // Probe with two more words: if one of them would be the command (or script) run, the command is not written.
  const probed = [...words, PROBE, PROBE]
  return unwrap(probed).some((inner) =>
    inner.kind === "exec"
      ? inner.start >= words.length
      : inner.kind === "script" && inner.from >= words.length,
  )
}

/** A word no option table recognises (not a flag, an assignment or a number). */
const PROBE = "\u0000probe"

/**
 * `coproc [NAME] command`: bash takes a NAME only before a compound command (`coproc W { …; }`); before a
 * simple command the first word is the command (`coproc rm x` runs `rm x`).
 */
function coproc(words: readonly string[]): Inner[] {
  const named =
    words.length > 2 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(words[1]!) && COMPOUND_OPENERS.has(words[2]!)
  const start = named ? 2 : 1
  return start < words.length ? [{ kind: "exec", start, end: words.length, via: "coproc" }] : []
}

/**
 * `parallel [options] command ::: args`: the command words, joined, are shell code (parallel runs them
 * with a shell, its `{}` filled in). With no command, the arguments or the input lines are the commands.
 */
function parallel(words: readonly string[]): Inner[] {
  let i = 1
  while (
    i < words.length &&
    words[i]!.length > 1 &&
    words[i]!.startsWith("-") &&
    !words[i]!.startsWith(":::")
  ) {
    const word = words[i]!
    i += PARALLEL_VALUES.includes(word) ? 2 : 1
  }
  let end = i
  while (end < words.length && !/^::::?\+?$/.test(words[end]!)) end++
  if (end > i) return [{ kind: "script", from: i, to: end, via: "parallel" }]
  return [{ kind: "stdin", via: "parallel" }]
}

/** The flag of `word` that takes a value, if any: `-u`, `--user`, `--user=x` (inline), `-ubob` (inline). */
function optionTaking(word: string, value: readonly string[]): { name: string; inline: boolean } | undefined {
  if (word.startsWith("--")) {
    const eq = word.indexOf("=")
    const name = eq < 0 ? word : word.slice(0, eq)
    return value.includes(name) ? { name, inline: eq >= 0 } : undefined
  }
  for (let at = 1; at < word.length; at++) {
    const name = `-${word[at]}`
    if (value.includes(name)) return { name, inline: at + 1 < word.length }
  }
  return undefined
}

function shell(words: readonly string[], name: string): Inner[] {
  let command = false
  let stdin = false
  let i = 1
  while (i < words.length) {
    const word = words[i]!
    if (word === "--" || word === "-") {
      if (word === "-") stdin = true
      i++
      break
    }
    if (word.length > 1 && (word.startsWith("-") || word.startsWith("+"))) {
      i++
      if (word.startsWith("--")) {
        if (word === "--rcfile" || word === "--init-file") i++
        continue
      }
      const letters = word.slice(1)
      if (word.startsWith("-") && letters.includes("c")) command = true
      if (letters.includes("s")) stdin = true
      if (letters.includes("o") || letters.includes("O")) i++
      continue
    }
    break
  }
  if (command) return i < words.length ? [{ kind: "script", from: i, to: i + 1, via: `${name} -c` }] : []
  // A script read from a file that is this shell's input or another command's output (`bash <(…)`).
  const script = words[i]
  if (!stdin && script !== undefined && /^\/(dev\/(stdin|fd\/\d+)|proc\/self\/fd\/\d+)$/.test(script))
    return [
      /^\/dev\/stdin$|\/0$/.test(script)
        ? { kind: "stdin", via: name }
        : { kind: "stdin", via: name, file: script },
    ]
  if (i < words.length && !stdin) return []
  return [{ kind: "stdin", via: name }]
}

/** `trap 'handler' SIGNAL…`: the handler is shell code that runs later in this shell. */
function trap(words: readonly string[]): Inner[] {
  let i = 1
  if (words[i] === "--") i++
  const handler = words[i]
  if (handler === undefined || handler.startsWith("-") || i + 1 >= words.length) return []
  return [{ kind: "script", from: i, to: i + 1, via: "trap" }]
}

function watch(words: readonly string[]): Inner[] {
  let exec = false
  let i = 1
  while (i < words.length) {
    const word = words[i]!
    if (word === "--") {
      i++
      break
    }
    if (!(word.length > 1 && word.startsWith("-"))) break
    if (word === "-x" || word === "--exec") exec = true
    i += word === "-n" || word === "--interval" || word === "-q" || word === "--equexit" ? 2 : 1
  }
  if (i >= words.length) return []
  return exec
    ? [{ kind: "exec", start: i, end: words.length, via: "watch" }]
    : [{ kind: "script", from: i, to: words.length, via: "watch" }]
}

/** The commands of `find -exec … ;` (or fd's `-x`): each of `actions` starts one, up to `;` or `+`. */
function findExec(
  words: readonly string[],
  { actions, via }: { readonly actions: readonly string[]; readonly via: string },
): Inner[] {
  const inner: Inner[] = []
  for (let i = 1; i < words.length; i++) {
    if (!actions.includes(words[i]!)) continue
    const start = i + 1
    let end = start
    while (end < words.length && words[end] !== ";" && words[end] !== "+") end++
    if (end > start) inner.push({ kind: "exec", start, end, via: `${via} ${words[i]}` })
    i = end
  }
  return inner
}
