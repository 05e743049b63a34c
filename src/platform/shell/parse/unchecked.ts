/**
 * Why the rules cannot check what a command runs, when they cannot. Such a command's pattern says nothing
 * about the program that will run, so no rule about programs can be matched against it; the caller must
 * treat it as the strictest outcome the rules could give (see `Scan.unchecked`).
 *
 * 1. Its command word is computed at run time (`command-word.ts`): `$(echo rm) x`, `"$@"`, `$CMD x`.
 * 2. It is an alias whose text is not known (`alias r="$x"; r`).
 * 3. It runs shell code built at run time: `eval "$x"`, `bash -c "$cmd"`, `sh -c "echo $x"` (the
 *    expansion can hold `; rm x`), `xargs -I X sh -c X`.
 * 4. It runs commands the command line does not hold: `source f`, `. ./env.sh`, a shell reading its
 *    standard input (`curl … | sh`), `parallel` without a command.
 * 5. Its command comes from input: `xargs sh -c`, `xargs sudo`, `xargs env` (the input names the program).
 * 6. It sets `BASH_ENV` or `ENV`, which make a shell run a file of commands first.
 */
import type { CommandWord } from "./command-word.ts"
import type { CommandView, Token } from "./frame.ts"
import { knownValue } from "./words.ts"
import { awaitsCommand, type Inner } from "./wrappers.ts"

/** Variables naming a file of commands that a non-interactive shell runs first. */
const STARTUP_FILE = /^(BASH_ENV|ENV)=/

/** Wrappers whose `NAME=value` words set the wrapped command's environment. */
const SETS_ENV: ReadonlySet<string> = new Set(["env", "sudo"])

/** Builtins that run the commands of a file in the current shell. */
const SOURCING: ReadonlySet<string> = new Set(["source", "."])

/** Why the rules cannot check `command` (its `word`, `words` and `inners`), or undefined when they can. */
export function uncheckedReason(options: {
  readonly command: CommandView
  readonly word: CommandWord
  readonly words: readonly string[]
  readonly inners: readonly Inner[]
}): string | undefined {
  const { command, word, words, inners } = options
  if (word.kind === "computed") return `its command word ${word.source} ${word.why}`
  if (SOURCING.has(word.base) && words.length > 1) {
    return `\`${word.name}\` runs the commands in the file ${words[1]}, which the rules cannot see`
  }
  const startup = [...command.assignments, ...(SETS_ENV.has(word.base) ? words.slice(1) : [])].find((text) =>
    STARTUP_FILE.test(text),
  )
  if (startup !== undefined) return startupFileReason(startup.split("=")[0]!)
  if (command.feeds && awaitsCommand(words)) {
    return `${command.feeds} appends words from its input to \`${words.join(" ")}\`, so the input chooses the program that runs`
  }
  for (const inner of inners) {
    if (inner.kind === "script" && isDynamic(command.tokens.slice(inner.from, inner.to))) {
      return `${inner.via} runs shell code that is built when the command runs`
    }
    if (inner.kind === "stdin") {
      if (inner.file) return `${inner.via} runs the shell code in ${inner.file}, another command's output`
      if (command.input?.dynamic)
        return `${inner.via} runs shell code from its input, built when the command runs`
      if (!command.input) {
        return inner.via === "parallel"
          ? "parallel takes the commands it runs from its arguments or input, which the rules cannot see"
          : `${inner.via} reads the commands it runs from its standard input, which the rules cannot see`
      }
    }
  }
  return undefined
}

/** Why setting `name` cannot be checked, when it names a file of commands a shell runs first (`BASH_ENV`). */
export function startupFileReason(name: string): string | undefined {
  return STARTUP_FILE.test(`${name}=`)
    ? `${name} makes a shell run the commands in a file first, which the rules cannot see`
    : undefined
}

/** Why an alias cannot be checked: its text is not known before the command runs. */
export function unknownAlias(name: string): string {
  return `\`${name}\` is an alias whose text is only known when the command runs`
}

function isDynamic(tokens: readonly Token[]): boolean {
  return tokens.some((token) => knownValue(token.values) === undefined)
}
