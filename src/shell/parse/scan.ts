/**
 * # The shell permission scan
 *
 * `scanCommand(command, {cwd, directory, worktree?, home?})` reads a shell command, without running it,
 * and says what the `bash` and `external_directory` permissions must cover before it may run. The bash
 * tool asks `external_directory` with `directoryPattern(dir)` for every `externalDirectories` entry first,
 * then one `bash` ask with `patterns` and `always`; any denied pattern denies the call.
 *
 * ## Commands and patterns
 * - The command is parsed with tree-sitter's bash grammar. Every command is found wherever it sits:
 *   pipelines, `&&`/`||`/`;`/`&` lists, subshells `( … )`, groups `{ …; }`, `if`/`for`/`while`/`case`
 *   bodies, function bodies, `$( … )`, backticks, `<( … )`, `${x:-$( … )}`, unquoted heredoc bodies.
 * - Strings that are shell code are parsed too, recursively (up to 8 levels): the script of
 *   `bash`/`sh`/`zsh`/`dash`/`ksh -c '…'` (also `-lc`, `-ec`…), `eval` arguments, `watch '…'`, `env -S '…'`,
 *   `su -c '…'`, `trap '…' EXIT` handlers, and the heredoc or here-string fed to a bare `bash`.
 * - Wrapped commands are commands too: `sudo`, `doas`, `env`, `nohup`, `time`, `timeout N`, `nice`,
 *   `ionice`, `stdbuf`, `setsid`, `taskset`, `command`, `builtin`, `exec`, `xargs`, `strace`, `caffeinate`,
 *   `find -exec/-execdir/-ok … ;`, `fd -x`, `uv run`, `poetry run`, `pipenv run`, `bundle exec`,
 *   `pnpm exec`, `npm exec`, `mise exec`, `conda run`, `direnv exec`. `sudo rm -rf x` gives two patterns,
 *   `sudo rm -rf x` and `rm -rf x`, so a rule about `rm` applies however `rm` is reached.
 * - A pattern is the command's source text including its redirections (`echo hi > out.txt`), and the
 *   redirections of the compound command around it (`{ a; b; } > log` gives `a > log` and `b > log`).
 *   Whitespace is normalised only between tokens: runs of blanks and line continuations become one
 *   space; quoted text, heredoc bodies and the tokens themselves are exactly as written. A heredoc's body
 *   is part of its command's pattern.
 * - A command whose name is a path or quoted (`/bin/rm`, `\rm`, `"git" push`) also gives its plain
 *   spelling as a pattern (`rm -rf x`, always `rm *`), so a rule about `rm` applies however it is written.
 * - `cd`, `chdir`, `pushd` and `popd` give no pattern (they are still checked for external directories).
 * - A redirection with no command (`> file`) is a pattern of its own. A standalone assignment to a
 *   variable that changes what later commands run (`PATH=…`, `LD_PRELOAD=…`, `IFS=…`) is a pattern, and
 *   `export`/`declare`/`local`/`readonly`/`typeset`/`unset` commands are patterns.
 * - `[ … ]`/`[[ … ]]` tests and other assignments run nothing and give no pattern (commands inside them do).
 *
 * ## "Always" patterns
 * - Each pattern's "always" pattern is its prefix from the arity table (`arity.ts`) plus ` *`:
 *   `git log *`, `npm run dev *`, `docker compose up *`, `ls *`. Flags before and between subcommands do not
 *   count but stay in the prefix, so the always pattern matches the command it came from:
 *   `git -C x log -5` gives `git -C x log *` (see `arity.ts` for the rule and why).
 * - Prefix assignments stay too: `FOO=1 npm test` gives `FOO=1 npm test *`.
 * - A wrapper's prefix is the wrapper with its options followed by the wrapped command's prefix:
 *   `sudo -u bob rm -rf x` gives `sudo -u bob rm *` (and `rm *` for the wrapped pattern).
 * - The prefix stops before a token containing `*` or `?`, which would be wildcards in a rule; when
 *   nothing is left, or the prefix is not a prefix of the pattern, "always" is the exact pattern.
 *
 * ## External directories
 * - The working directory (`cwd`), when outside the project, is an external directory itself.
 * - File-like commands (`operands.ts`: `rm cp mv ln mkdir rmdir touch chmod chown cat head tail less tee
 *   truncate dd sed grep rg awk ls find du diff sort tar zip unzip rsync scp curl -o wget -O git -C
 *   make -C …`) have their path operands resolved; so do `cd`/`pushd` targets and every redirection
 *   target (`>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<>`, `>&file`), except `/dev/null`, `/dev/stdin`,
 *   `/dev/stdout`, `/dev/stderr`, `/dev/tty`, `/dev/zero`, `/dev/random`, `/dev/urandom` and `/dev/fd/N`.
 * - Paths are expanded as far as the scan can know: quotes removed, `~`, `~user`, `$HOME`, `$PWD`,
 *   `$OLDPWD`, `$(pwd)`, variables assigned earlier in the command with literal values, and `for` loop
 *   variables over literal words. Relative paths resolve against the directory the command runs in:
 *   `cd`/`pushd`/`popd` earlier in the same list move it (`cd /tmp && rm x` checks `/tmp/x`); subshells,
 *   pipeline stages, `$( … )` and `&` background jobs keep their moves to themselves.
 * - A path with a glob or an unknown expansion is checked by its literal prefix, as a directory:
 *   `rm /tmp/build-*` checks `/tmp`, `cat "$HOME/$f"` checks the home directory. A path that starts with
 *   an unknown expansion (`rm -rf "$DIR"`) cannot be placed: it is listed in `reasons`.
 * - Each path is located the way the kernel will see it (symlinks followed, `..` applied after them, a
 *   missing path through its nearest existing ancestor, a dangling symlink through its target). It is
 *   external when outside the project directory and outside the worktree (unless the worktree is `/`);
 *   then its real directory is listed: the path itself for a directory operand (`cd`, `mkdir`, `rmdir`,
 *   `find` start points, `-C` flags, or any existing directory), else its parent directory.
 *
 * ## When the scan is unsure
 * - `parsed: false` when the command (or a nested script) has a syntax error, nests too deeply, or the
 *   parser cannot load. The caller must then ask for the whole command, never allow it silently. The
 *   patterns are then the whole command text first, followed by the commands the scan could still make
 *   out (so that deny rules still apply); "always" is the exact text of each, never a prefix.
 * - `reasons` lists what the scan could not see through, even when it parsed: a command name that is an
 *   expansion (`$CMD args`), shell code built from expansions (`eval "$x"`, `bash -c "$cmd"`), a shell
 *   reading commands from standard input (`curl … | sh`), paths it could not place, a working directory
 *   it lost track of (`cd "$(…)"`), arguments a file command gets from input (`… | xargs rm`). A careful
 *   caller asks rather than allowing silently when `reasons` is present.
 * - Line continuations outside quotes are removed before parsing, as bash does, so `r\⏎m -rf /` is seen as
 *   `rm -rf /`.
 *
 * ## Where the grammar and bash disagree (handled here)
 * - `a && b > f` and `a | b > f`: the grammar hangs the redirection on the whole list or pipeline; bash
 *   applies it to `b` only, so it goes to `b`'s pattern and is resolved where `b` runs.
 * - `echo > out a b`: the grammar makes `a b` redirection targets; they are `echo`'s arguments.
 * - `python3 - <<EOF`: the grammar drops the `-`; it is put back.
 * - `cat <<EOF | sh` and `cat <<EOF && b`: the grammar nests what follows inside the heredoc; it is walked
 *   as the pipeline or list it is.
 * - Any other source text the grammar leaves out of the tree makes the scan `parsed: false`.
 */
import { homedir } from "node:os"
import { basename, isAbsolute, resolve } from "node:path"
import { prefixLength } from "./arity.ts"
import { externalDirectory, isHarmlessDevice, realRoot } from "./locate.ts"
import { isFileCommand, type PathKind, pathOperands } from "./operands.ts"
import { loadBashParser, type Node, type Tree } from "./parser.ts"
import {
  type Expansions,
  knownValue,
  normalisedText,
  normaliseGap,
  type WordValue,
  wordValues,
} from "./words.ts"
import { type Inner, unwrap } from "./wrappers.ts"

export interface ScanOptions {
  /** The directory the command runs in (relative paths resolve against `directory`). */
  readonly cwd: string
  /** The project directory. */
  readonly directory: string
  /** The worktree root; ignored when it is `/` (non-git projects). */
  readonly worktree?: string
  /** The home directory for `~` and `$HOME` (default: the process's). */
  readonly home?: string
}

/** One command found in the command line. */
export interface ScannedCommand {
  /** The `bash` pattern: source text with redirections, whitespace between tokens normalised. */
  readonly text: string
  /** The command name as known (quotes removed), or its source text when it is an expansion. */
  readonly name: string
  /** The words (name first): known values, or source text for those the scan cannot know. */
  readonly argv: readonly string[]
  /** The "always" pattern; undefined when the command asks nothing (`cd`). */
  readonly always: string | undefined
  /** Whether it is a `bash` pattern (false for `cd`, `pushd`, `popd`, `chdir`). */
  readonly asks: boolean
  /** How it was reached when not written at the top level: `sudo`, `bash -c`, `eval`, `find -exec`… */
  readonly via?: string
  /** The directory it runs in, when known. */
  readonly cwd?: string
  /**
   * The same command with its name and subcommands spelled plainly, when written otherwise
   * (`/bin/rm -rf x`, `\rm x`, `"git" push`): `rm -rf x` with always `rm *`. It is a pattern too, so a
   * rule about `rm` applies however `rm` is spelled.
   */
  readonly plain?: { readonly text: string; readonly always: string }
}

export interface Scan {
  /** False when the command could not be parsed: the caller must ask for the whole command. */
  readonly parsed: boolean
  readonly commands: readonly ScannedCommand[]
  /** The `bash` patterns, unique, in order. */
  readonly patterns: readonly string[]
  /** The "always" patterns, unique, in order. */
  readonly always: readonly string[]
  /** Real directories outside the project (and worktree) that the command touches, unique, in order. */
  readonly externalDirectories: readonly string[]
  /** What the scan could not see through (present only when there is something to say). */
  readonly reasons?: readonly string[]
}

/** The `external_directory` pattern for a directory: `<dir>/*` (`/*` for the root). */
export function directoryPattern(directory: string): string {
  return directory.endsWith("/") ? `${directory}*` : `${directory}/*`
}

/** Scans a shell command for the permissions it needs (see the module comment for the rules). */
export async function scanCommand(command: string, options: ScanOptions): Promise<Scan> {
  const directory = resolve(options.directory)
  const cwd = resolve(directory, options.cwd)
  const home = options.home ?? homedir()
  const whole = command.trim()
  const roots = projectRoots(directory, options.worktree)
  let scanner: Scanner
  try {
    scanner = new Scanner(await loadBashParser(), home)
  } catch (error) {
    const externalDirectories: string[] = []
    const outside = externalDirectory(cwd, "dir", roots)
    if (outside !== undefined) externalDirectories.push(outside)
    return {
      parsed: false,
      commands: [],
      patterns: whole === "" ? [] : [whole],
      always: whole === "" ? [] : [whole],
      externalDirectories,
      reasons: [
        `the shell parser could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
      ],
    }
  }
  const state: State = { cwd, oldpwd: undefined, stack: [], vars: new Map() }
  scanner.check(cwd, "dir")
  scanner.script(command, { source: command, state, redirects: [], depth: 0, via: undefined }, undefined)
  const externalDirectories = scanner.externals(roots)
  const commands = scanner.commands
  const asking = commands.filter((entry) => entry.asks)
  let patterns: string[]
  let always: string[]
  if (scanner.failed) {
    patterns = unique([whole, ...asking.flatMap(texts)].filter((text) => text !== ""))
    always = patterns
  } else {
    patterns = unique(asking.flatMap(texts))
    always = unique(
      asking.flatMap((entry) => [entry.always ?? entry.text, ...(entry.plain ? [entry.plain.always] : [])]),
    )
  }
  const reasons = unique(scanner.reasons)
  return {
    parsed: !scanner.failed,
    commands,
    patterns,
    always,
    externalDirectories,
    ...(reasons.length > 0 ? { reasons } : {}),
  }
}

function projectRoots(directory: string, worktree: string | undefined): string[] {
  const roots = [realRoot(directory)]
  if (worktree !== undefined && worktree !== "" && resolve(directory, worktree) !== resolve("/")) {
    roots.push(realRoot(resolve(directory, worktree)))
  }
  return roots
}

/** A command's patterns: its text, and its plain spelling when that differs. */
function texts(command: ScannedCommand): string[] {
  return command.plain ? [command.text, command.plain.text] : [command.text]
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)]
}

/** Deepest nesting of shell code in strings (`bash -c "eval '…'"`) the scan follows. */
const MAX_DEPTH = 8

const CD_FAMILY: ReadonlySet<string> = new Set(["cd", "chdir", "pushd", "popd"])

/** Variables whose assignment changes what later commands run or how they parse. */
const SENSITIVE_VARIABLES: ReadonlySet<string> = new Set([
  "PATH",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH",
  "BASH_ENV",
  "ENV",
  "IFS",
  "SHELLOPTS",
  "BASHOPTS",
  "PROMPT_COMMAND",
  "PS4",
  "GIT_SSH_COMMAND",
  "GIT_EXEC_PATH",
])

const DECLARATIONS: ReadonlySet<string> = new Set(["declaration_command", "unset_command"])

/** Statements the grammar may put inside a command node (`time (npm test)`): walked, not words. */
const STATEMENTS: ReadonlySet<string> = new Set([
  "subshell",
  "compound_statement",
  "pipeline",
  "list",
  "redirected_statement",
  "command",
  "if_statement",
  "while_statement",
  "for_statement",
  "c_style_for_statement",
  "case_statement",
  "function_definition",
  "negated_command",
  "test_command",
  "declaration_command",
  "unset_command",
  "ERROR",
])

/** Shell state that `cd` and assignments change as the command runs. */
interface State {
  cwd: string | undefined
  oldpwd: string | undefined
  stack: (string | undefined)[]
  vars: Map<string, readonly string[] | undefined>
}

interface Frame {
  /** The text being walked (the command line, or a nested script), which node indices point into. */
  readonly source: string
  readonly state: State
  /** Redirections of the enclosing compound commands, innermost first. */
  readonly redirects: readonly string[]
  readonly depth: number
  readonly via: string | undefined
}

/** A word of a command: its source text and possible values. */
interface Token {
  readonly source: string
  readonly values: readonly WordValue[]
}

/** Standard input given to a command in the command line itself (heredoc or here-string). */
interface Input {
  readonly text: string
  readonly dynamic: boolean
}

/** A command ready for the rules: words, pattern text, redirections. */
interface CommandView {
  readonly tokens: readonly Token[]
  /** Prefix assignments (`FOO=1`), as written. */
  readonly assignments: readonly string[]
  readonly text: string
  /** Every redirection that applies to it (its own, then the enclosing ones). */
  readonly redirects: readonly string[]
  readonly input: Input | undefined
  readonly via: string | undefined
}

/** What the redirections of one command amount to. */
interface Redirections {
  /** The redirection nodes and their pattern texts, in order. */
  readonly nodes: Node[]
  readonly texts: string[]
  /** Words the grammar put in a redirection that are really arguments (`echo > a b`: `b`). */
  readonly extra: Node[]
  input: Input | undefined
  /** Statements the grammar nested in a heredoc redirection (`cat <<EOF | sh`, `… <<EOF && b`). */
  readonly trailing: Node[]
}

function fork(frame: Frame): Frame {
  const state = frame.state
  return {
    ...frame,
    state: { cwd: state.cwd, oldpwd: state.oldpwd, stack: [...state.stack], vars: new Map(state.vars) },
  }
}

class Scanner {
  readonly commands: ScannedCommand[] = []
  readonly reasons: string[] = []
  failed = false
  private readonly checks = new Map<string, PathKind>()
  private readonly parser: { parse(source: string): Tree | null }
  private readonly home: string

  constructor(parser: { parse(source: string): Tree | null }, home: string) {
    this.parser = parser
    this.home = home
  }

  // ----- parsing -------------------------------------------------------------------------------------

  /** Parses and walks shell source (the command line, or a nested script). */
  script(source: string, frame: Frame, via: string | undefined): void {
    if (frame.depth > MAX_DEPTH) {
      this.fail(`${via ?? "script"}: shell code nested more than ${MAX_DEPTH} levels deep`)
      return
    }
    const parsed = this.parse(source)
    if (!parsed) {
      this.fail(`${via ?? "command"}: the parser produced no tree`)
      return
    }
    const { tree } = parsed
    try {
      const root = tree.rootNode
      if (root.hasError) this.fail(`${via ? `${via}: ` : ""}${syntaxError(root)}`)
      this.walk(root, { ...frame, source: parsed.source })
    } finally {
      tree.delete()
    }
  }

  /** Parses `source`, first removing line continuations outside quotes when there are any (bash does). */
  private parse(source: string): { tree: Tree; source: string } | undefined {
    const tree = this.parser.parse(source) ?? undefined
    if (!tree) return undefined
    if (!/\\\r?\n/.test(source)) return { tree, source }
    const cleaned = removeContinuations(source, tree.rootNode)
    if (cleaned === source) return { tree, source }
    tree.delete()
    const again = this.parser.parse(cleaned) ?? undefined
    return again ? { tree: again, source: cleaned } : undefined
  }

  /**
   * Text between two tokens of one command, as it goes into a pattern: blanks become one space, nothing
   * stays nothing. Anything else means the grammar dropped a token; the text is kept, and unless it is the
   * one known case (a lone `-` before a heredoc, as in `python3 - <<EOF`) the command counts as unparsed.
   */
  private gap(frame: Frame, from: number, to: number): string {
    if (to < from) return " "
    const gap = normaliseGap(frame.source.slice(from, to))
    if (gap !== "" && gap !== " " && gap.trim() !== "-") this.fail(`the parser skipped text: ${gap.trim()}`)
    return gap
  }

  /** A node's text with the gaps between its children normalised (see `gap`). */
  private text(node: Node, frame: Frame): string {
    return normalisedText(node, (from, to) => this.gap(frame, from, to))
  }

  /** A command's text followed by the redirections written after it, with the gaps as in the source. */
  private withRedirections(node: Node, outer: Redirections | undefined, frame: Frame): string {
    let text = this.text(node, frame)
    let previousEnd = node.endIndex
    for (let i = 0; i < (outer?.texts.length ?? 0); i++) {
      const redirect = outer!.nodes[i]!
      text += this.gap(frame, previousEnd, redirect.startIndex) + outer!.texts[i]!
      previousEnd = redirect.endIndex
    }
    return [text, ...frame.redirects].join(" ")
  }

  private fail(reason: string): void {
    this.failed = true
    this.reasons.push(reason)
  }

  // ----- walking -------------------------------------------------------------------------------------

  private walk(node: Node, frame: Frame): void {
    switch (node.type) {
      case "command":
        this.command(node, frame, undefined)
        return
      case "redirected_statement":
        this.redirected(node, frame)
        return
      case "declaration_command":
      case "unset_command":
        this.declaration(node, frame, undefined)
        return
      case "variable_assignment":
        this.assignment(node, frame)
        return
      case "subshell":
      case "command_substitution":
      case "process_substitution":
        this.sequence(node.children, fork(frame))
        return
      case "pipeline": {
        const stages = node.namedChildren
        for (const stage of stages) this.walk(stage, stages.length > 1 ? fork(frame) : frame)
        return
      }
      case "function_definition":
        this.sequence(node.children, fork(frame))
        return
      case "for_statement":
        this.forLoop(node, frame)
        return
      case "comment":
        return
      default:
        this.sequence(node.children, frame)
    }
  }

  /** Walks statements in order; one followed by `&` runs in the background, in a copy of the state. */
  private sequence(children: readonly Node[], frame: Frame): void {
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!
      if (!child.isNamed) continue
      const background = children[i + 1]?.type === "&"
      this.walk(child, background ? fork(frame) : frame)
    }
  }

  /** Walks a node only for the commands nested in it (substitutions), never as a statement. */
  private nested(node: Node | null | undefined, frame: Frame): void {
    // Only substitutions hold commands: skip any text that cannot contain one (most words).
    if (!node || !/\$\(|`|[<>]\(/.test(node.text)) return
    if (node.type === "command_substitution" || node.type === "process_substitution") {
      this.walk(node, frame)
      return
    }
    for (const child of node.namedChildren) this.nested(child, frame)
  }

  private redirected(node: Node, frame: Frame): void {
    const body = node.childForFieldName("body")
    const redirects = node.childrenForFieldName("redirect")
    if (!body) {
      this.redirections(redirects, frame)
      const text = this.text(node, frame)
      this.record({
        text,
        name: "",
        argv: [],
        always: text,
        asks: true,
        via: frame.via,
        cwd: frame.state.cwd,
      })
      return
    }
    this.redirectedBody(body, redirects, frame)
  }

  /**
   * A statement and the redirections written after it. The grammar hangs `a && b > f` and `a | b > f` on
   * the whole list or pipeline, but bash applies them to the last command only (`b`), in the directory
   * it runs in, so they are moved there.
   */
  private redirectedBody(body: Node, redirects: readonly Node[], frame: Frame): void {
    if (body.type === "list" || body.type === "pipeline") {
      const stages = body.namedChildren
      const pipeline = body.type === "pipeline" && stages.length > 1
      for (const stage of stages.slice(0, -1)) this.walk(stage, pipeline ? fork(frame) : frame)
      const last = stages.at(-1)
      if (last) this.redirectedBody(last, redirects, pipeline ? fork(frame) : frame)
      return
    }
    const redirections = this.redirections(redirects, frame)
    if (body.type === "command") {
      this.command(body, frame, redirections)
    } else if (DECLARATIONS.has(body.type)) {
      this.declaration(body, frame, redirections)
    } else {
      for (const extra of redirections.extra) this.nested(extra, frame)
      this.walk(body, { ...frame, redirects: [...redirections.texts, ...frame.redirects] })
    }
    this.trailing(redirections.trailing, frame)
  }

  private trailing(nodes: readonly Node[], frame: Frame): void {
    for (const node of nodes) this.walk(node, node.type === "pipeline" ? fork(frame) : frame)
  }

  private redirections(nodes: readonly Node[], frame: Frame): Redirections {
    const result: Redirections = { nodes: [], texts: [], extra: [], input: undefined, trailing: [] }
    for (const node of nodes) this.redirection(node, frame, result)
    return result
  }

  private redirection(node: Node, frame: Frame, into: Redirections): void {
    switch (node.type) {
      case "file_redirect": {
        const destinations = node.childrenForFieldName("destination")
        const target = destinations[0]
        const operator = node.children.find((child) => !child.isNamed)?.type ?? ""
        const duplicate = operator.endsWith("&") && (target?.type === "number" || target?.text === "-")
        if (target && !duplicate && operator !== ">&-" && operator !== "<&-") {
          this.nested(target, frame)
          this.checkToken(this.token(target, frame), 0, "file", frame.state)
        }
        into.extra.push(...destinations.slice(1))
        into.nodes.push(node)
        into.texts.push(this.text(node, frame))
        return
      }
      case "herestring_redirect": {
        this.nested(node, frame)
        const value = node.namedChildren.at(-1)
        if (value) {
          const values = wordValues(value, this.expansions(frame.state))
          into.input = { text: values[0]?.text ?? "", dynamic: knownValue(values) === undefined }
        }
        into.nodes.push(node)
        into.texts.push(this.text(node, frame))
        return
      }
      case "heredoc_redirect": {
        let head = ""
        let previousEnd = -1
        let body: Node | undefined
        let end: Node | undefined
        const nested: string[] = []
        for (const child of node.children) {
          if (child.type === "<<" || child.type === "<<-" || child.type === "heredoc_start") {
            if (previousEnd >= 0) head += this.gap(frame, previousEnd, child.startIndex)
            head += child.text
            previousEnd = child.endIndex
          } else if (child.type === "heredoc_body") body = child
          else if (child.type === "heredoc_end") end = child
          else if (child.type.endsWith("_redirect")) {
            const inner: Redirections = { nodes: [], texts: [], extra: [], input: undefined, trailing: [] }
            this.redirection(child, frame, inner)
            nested.push(...inner.texts)
            into.extra.push(...inner.extra)
          } else if (child.isNamed) into.trailing.push(child)
        }
        const start = node.children.find((child) => child.type === "heredoc_start")?.text ?? ""
        const quoted = /['"\\]/.test(start)
        if (body && !quoted) this.nested(body, fork(frame))
        // The body from the start of its first line (the grammar's body node may start after `<<-` tabs).
        const first = body ?? end
        const from = first ? frame.source.lastIndexOf("\n", first.startIndex - 1) + 1 : previousEnd
        const content = end
          ? frame.source.slice(from, end.startIndex)
          : frame.source.slice(from, body?.endIndex ?? from)
        const dynamic =
          !quoted && (body?.namedChildren.some((child) => child.type !== "heredoc_content") ?? false)
        into.input = { text: content, dynamic }
        into.nodes.push(node)
        into.texts.push(`${[head, ...nested].join(" ")}\n${content}${end?.text ?? ""}`)
        return
      }
      default:
        this.nested(node, frame)
    }
  }

  // ----- commands ------------------------------------------------------------------------------------

  private command(node: Node, frame: Frame, outer: Redirections | undefined): void {
    const assignments: Node[] = []
    const words: Node[] = []
    const inline: Node[] = []
    // By type rather than by field name: one wasm call less per child, and this runs for every command.
    for (const child of node.children) {
      const type = child.type
      if (type === "variable_assignment") assignments.push(child)
      else if (type === "command_name") words.unshift(child)
      else if (type.endsWith("_redirect")) inline.push(child)
      else if (type === "comment") continue
      else if (STATEMENTS.has(type)) this.walk(child, frame)
      else if (child.isNamed || type === "$") words.push(child)
    }
    for (const assignment of assignments) this.nested(assignment, frame)
    for (const word of words) this.nested(word, frame)
    const own = this.redirections(inline, frame)
    const extra = [...own.extra, ...(outer?.extra ?? [])].sort((a, b) => a.startIndex - b.startIndex)
    for (const word of extra) this.nested(word, frame)
    const outerTexts = outer?.texts ?? []
    const text = this.withRedirections(node, outer, frame)
    const tokens = [...words, ...extra].map((word) => this.token(word, frame))
    // The grammar drops a lone `-` before a heredoc (`python3 - <<EOF`): put the argument back.
    const firstOuter = outer?.nodes[0]
    if (firstOuter && frame.source.slice(node.endIndex, firstOuter.startIndex).trim() === "-") {
      tokens.splice(words.length, 0, { source: "-", values: [{ text: "-", dynamicAt: 1, globAt: 1 }] })
    }
    this.process(
      {
        tokens,
        assignments: assignments.map((assignment) => this.text(assignment, frame)),
        text,
        redirects: [...own.texts, ...outerTexts, ...frame.redirects],
        input: outer?.input ?? own.input,
        via: frame.via,
      },
      frame,
    )
    this.trailing(own.trailing, frame)
  }

  private process(command: CommandView, frame: Frame): void {
    const { tokens } = command
    const words = tokens.map((token) => knownValue(token.values) ?? token.source)
    const name = tokens[0] ? knownValue(tokens[0].values) : undefined
    const base = name === undefined ? undefined : basename(name)
    const cwd = frame.state.cwd
    const entry = { text: command.text, name: words[0] ?? "", argv: words, via: command.via, cwd }
    if (tokens.length === 0) {
      this.record({ ...entry, always: command.text, asks: true })
      return
    }
    // Reserved words the grammar leaves as words after a wrapper (`time { rm x; }`): `{` opens a group
    // whose first command follows it, `}` closes it.
    if (name === "{" || name === "}") {
      if (name === "{" && tokens.length > 1) {
        const rest = tokens.slice(1)
        const text = command.text.startsWith("{ ") ? command.text.slice(2) : command.text
        this.process({ ...command, tokens: rest, assignments: [], text }, frame)
      }
      return
    }
    if (base !== undefined && CD_FAMILY.has(base)) {
      this.record({ ...entry, always: undefined, asks: false })
      this.changeDirectory(base, tokens, frame.state)
      return
    }
    const inners = unwrap(words)
    const always = this.alwaysOf(command, words, inners)
    const plain = plainSpelling(command, words, base, always)
    this.record({ ...entry, always, asks: true, plain })
    if (name === undefined)
      this.reasons.push(`the command name is not known before it runs: ${tokens[0]!.source}`)
    for (const operand of pathOperands(words)) {
      const token = tokens[operand.index]
      if (token) this.checkToken(token, operand.offset, operand.kind, frame.state)
    }
    for (const inner of inners) {
      if (inner.kind === "exec") {
        const wrapped = tokens.slice(inner.start, inner.end)
        let state = frame.state
        if (inner.chdir !== undefined) {
          const target = tokens[inner.chdir]
          state = fork(frame).state
          if (target) {
            this.checkToken(target, 0, "dir", frame.state)
            state.cwd = this.directoryOf(target, frame.state)
          }
        }
        if (inner.input && isFileCommand(words[inner.start]!)) {
          this.reasons.push(
            `${inner.via} gives ${words[inner.start]} arguments from its input, which the scan cannot see`,
          )
        }
        this.process(
          {
            tokens: wrapped,
            assignments: [],
            text: [...wrapped.map((token) => token.source), ...command.redirects].join(" "),
            redirects: command.redirects,
            input: command.input,
            via: inner.via,
          },
          { ...frame, state },
        )
      } else if (inner.kind === "script") {
        const parts = tokens.slice(inner.from, inner.to)
        const dynamic = parts.some((token) => knownValue(token.values) === undefined)
        if (dynamic) this.reasons.push(`${inner.via} runs shell code built from expansions: ${command.text}`)
        const source = parts.map((token) => token.values[0]?.text ?? token.source).join(" ")
        const nested = inner.via === "eval" ? frame : fork(frame)
        this.script(
          source,
          { ...nested, redirects: command.redirects, depth: frame.depth + 1, via: inner.via },
          inner.via,
        )
      } else if (command.input) {
        if (command.input.dynamic)
          this.reasons.push(`${inner.via} runs shell code built from expansions: ${command.text}`)
        const nested = fork(frame)
        this.script(command.input.text, { ...nested, depth: frame.depth + 1, via: inner.via }, inner.via)
      } else {
        this.reasons.push(`${inner.via} reads commands from its standard input, which the scan cannot see`)
      }
    }
  }

  /** The "always" pattern: the arity prefix (through wrappers) plus ` *`, else the exact text. */
  private alwaysOf(command: CommandView, words: readonly string[], inners: readonly Inner[]): string {
    const texts = [...command.assignments, ...prefixTexts(command.tokens, words, inners)]
    const kept: string[] = []
    for (const text of texts) {
      if (/[*?]/.test(text)) break
      kept.push(text)
    }
    const prefix = kept.join(" ")
    if (kept.length === 0 || !(command.text === prefix || command.text.startsWith(`${prefix} `)))
      return command.text
    return `${prefix} *`
  }

  private declaration(node: Node, frame: Frame, outer: Redirections | undefined): void {
    const keyword = node.child(0)?.text ?? ""
    for (const child of node.namedChildren) {
      if (child.type === "variable_assignment") this.assignment(child, frame, true)
      else if (child.type === "variable_name" && keyword === "unset")
        frame.state.vars.set(child.text, undefined)
      else this.nested(child, frame)
    }
    for (const extra of outer?.extra ?? []) this.nested(extra, frame)
    const text = this.withRedirections(node, outer, frame)
    const always = text === keyword ? keyword : text.startsWith(`${keyword} `) ? `${keyword} *` : text
    this.record({
      text,
      name: keyword,
      argv: [keyword],
      always,
      asks: true,
      via: frame.via,
      cwd: frame.state.cwd,
    })
    this.trailing(outer?.trailing ?? [], frame)
  }

  /** A variable assignment: its value is tracked for later expansions. */
  private assignment(node: Node, frame: Frame, declared = false): void {
    const name = node.childForFieldName("name")?.text ?? ""
    const value = node.childForFieldName("value")
    this.nested(value, frame)
    const append = node.children.some((child) => child.type === "+=")
    let values: readonly string[] | undefined
    if (!append) {
      const expanded = value
        ? wordValues(value, this.expansions(frame.state))
        : [{ text: "", dynamicAt: 0, globAt: 0 }]
      values = expanded.every((part) => part.dynamicAt === part.text.length)
        ? expanded.map((part) => part.text)
        : undefined
    }
    frame.state.vars.set(name, values)
    if (!declared && SENSITIVE_VARIABLES.has(name)) {
      const text = [this.text(node, frame), ...frame.redirects].join(" ")
      this.record({ text, name, argv: [], always: text, asks: true, via: frame.via, cwd: frame.state.cwd })
    }
  }

  private forLoop(node: Node, frame: Frame): void {
    const variable = node.childForFieldName("variable")?.text
    const values = node.childrenForFieldName("value")
    for (const value of values) this.nested(value, frame)
    if (variable !== undefined) {
      let known: string[] | undefined = values.length === 0 ? undefined : []
      for (const value of values) {
        const expanded = wordValues(value, this.expansions(frame.state))
        if (!known || expanded.some((part) => part.dynamicAt < part.text.length)) {
          known = undefined
          break
        }
        known.push(...expanded.map((part) => part.text))
      }
      frame.state.vars.set(variable, known)
    }
    for (const child of node.namedChildren) {
      if (child.type !== "variable_name" && !values.some((value) => value.equals(child)))
        this.walk(child, frame)
    }
  }

  // ----- directories ---------------------------------------------------------------------------------

  private changeDirectory(base: string, tokens: readonly Token[], state: State): void {
    const args = tokens.slice(1).filter((token, index, all) => {
      const value = knownValue(token.values)
      if (value === "--") return false
      const afterDashes = all.slice(0, index).some((previous) => knownValue(previous.values) === "--")
      return afterDashes || !(value !== undefined && /^-[LPe@]+$/.test(value))
    })
    const target = args[0]
    const move = (next: string | undefined) => {
      state.oldpwd = state.cwd
      state.cwd = next
    }
    if (base === "popd") {
      if (args.length > 0) move(undefined)
      else if (state.stack.length > 0) move(state.stack.pop())
      return
    }
    if (base === "pushd") {
      if (!target) {
        if (state.stack.length === 0) return
        const top = state.stack.pop()
        state.stack.push(state.cwd)
        move(top)
        return
      }
      if (/^[+-][0-9]+$/.test(knownValue(target.values) ?? "")) {
        this.reasons.push(`the working directory is not known after ${base} ${target.source}`)
        move(undefined)
        return
      }
      state.stack.push(state.cwd)
    }
    if (!target) {
      this.check(this.home, "dir")
      move(this.home)
      return
    }
    if (base === "cd" && knownValue(target.values) === "-") {
      move(state.oldpwd)
      return
    }
    this.checkToken(target, 0, "dir", state)
    move(this.directoryOf(target, state))
  }

  /** The directory a `cd`-like target leads to, when the scan can know it. */
  private directoryOf(token: Token, state: State): string | undefined {
    const value = token.values.length === 1 ? token.values[0]! : undefined
    const known = value && value.dynamicAt === value.text.length && value.globAt === value.text.length
    if (!known) {
      this.reasons.push(`the working directory is not known after moving to ${token.source}`)
      return undefined
    }
    if (isAbsolute(value.text)) return resolve(value.text)
    return state.cwd === undefined ? undefined : resolve(state.cwd, value.text)
  }

  // ----- paths ---------------------------------------------------------------------------------------

  private token(node: Node, frame: Frame): Token {
    return { source: node.text, values: wordValues(node, this.expansions(frame.state)) }
  }

  private expansions(state: State): Expansions {
    return { home: this.home, cwd: state.cwd, oldpwd: state.oldpwd, vars: state.vars }
  }

  /** Queues the path in `token` (from `offset` in its value) for the external-directory check. */
  private checkToken(token: Token, offset: number, kind: PathKind, state: State): void {
    for (const value of token.values) {
      let text = value.text.slice(offset)
      let dynamicAt = Math.max(0, value.dynamicAt - offset)
      let globAt = Math.max(0, value.globAt - offset)
      if (offset > 0 && (text === "~" || text.startsWith("~/")) && dynamicAt > 0 && globAt > 0) {
        text = this.home + text.slice(1)
        dynamicAt += this.home.length - 1
        globAt += this.home.length - 1
      }
      this.checkPath(text, dynamicAt, globAt, kind, state, token.source)
    }
  }

  private checkPath(
    text: string,
    dynamicAt: number,
    globAt: number,
    kind: PathKind,
    state: State,
    source: string,
  ) {
    if (text === "") return
    if (dynamicAt === 0) {
      this.reasons.push(`cannot tell where ${source} points`)
      return
    }
    let path = text
    const cut = Math.min(dynamicAt, globAt)
    if (cut < text.length) {
      // A glob or an unknown part: check the directory holding it.
      path = text.slice(0, text.lastIndexOf("/", cut - 1) + 1) || "."
      kind = "dir"
    }
    let absolute: string
    if (isAbsolute(path)) absolute = path
    else if (state.cwd === undefined) {
      this.reasons.push(`cannot tell where ${source} points: the working directory is not known`)
      return
    } else absolute = `${state.cwd}/${path}`
    this.check(absolute, kind)
  }

  /** Queues an absolute path (may contain `..`) for the external-directory check. */
  check(absolute: string, kind: PathKind): void {
    if (isHarmlessDevice(resolve(absolute))) return
    const previous = this.checks.get(absolute)
    if (previous === undefined || previous === "file") this.checks.set(absolute, kind)
  }

  /** Resolves the queued paths: the real directories outside `roots`, unique, in the order found. */
  externals(roots: readonly string[]): string[] {
    const found: string[] = []
    for (const [path, kind] of this.checks) {
      const directory = externalDirectory(path, kind, roots)
      if (directory !== undefined) found.push(directory)
    }
    return unique(found)
  }

  private record(command: {
    text: string
    name: string
    argv: readonly string[]
    always: string | undefined
    asks: boolean
    via: string | undefined
    cwd?: string | undefined
    plain?: ScannedCommand["plain"]
  }): void {
    this.commands.push({
      text: command.text,
      name: command.name,
      argv: command.argv,
      always: command.always,
      asks: command.asks,
      ...(command.via !== undefined ? { via: command.via } : {}),
      ...(command.cwd !== undefined ? { cwd: command.cwd } : {}),
      ...(command.plain !== undefined ? { plain: command.plain } : {}),
    })
  }
}

/**
 * The source texts of a command's "always" prefix: through exec wrappers (`sudo -u x`, `timeout 5`),
 * then the arity prefix of what they run.
 */
function prefixTexts(
  tokens: readonly Token[],
  words: readonly string[],
  inners: readonly Inner[] = unwrap(words),
): string[] {
  const inner = inners.find((entry) => entry.kind === "exec" && entry.end === words.length)
  if (inner && inner.kind === "exec" && !inner.via.startsWith("find") && !inner.via.startsWith("fd")) {
    return [
      ...tokens.slice(0, inner.start).map((token) => token.source),
      ...prefixTexts(tokens.slice(inner.start), words.slice(inner.start)),
    ]
  }
  return tokens.slice(0, prefixLength(words)).map((token) => token.source)
}

/**
 * The command with its name (basename, quotes and escapes removed) and subcommands spelled plainly, when
 * that differs from how it is written. Only plain words are unquoted, and never into wildcard characters,
 * which would make a pattern that means something else.
 */
function plainSpelling(
  command: CommandView,
  words: readonly string[],
  base: string | undefined,
  always: string,
) {
  if (base === undefined) return undefined
  const count = prefixLength(words)
  if (!SIMPLE_WORD.test(base)) return undefined
  // Subcommands are unquoted only when that cannot change their meaning; otherwise kept as written.
  const values = [
    base,
    ...words
      .slice(1, count)
      .map((word, i) => (SIMPLE_WORD.test(word) ? word : command.tokens[i + 1]!.source)),
  ]
  if ([...values, ...command.assignments].some((value) => /[*?]/.test(value))) return undefined
  const lead = [...command.assignments, ...command.tokens.slice(0, count).map((token) => token.source)].join(
    " ",
  )
  const plainLead = [...command.assignments, ...values].join(" ")
  if (plainLead === lead || !command.text.startsWith(lead)) return undefined
  const text = plainLead + command.text.slice(lead.length)
  return { text, always: always.startsWith(`${lead} `) ? plainLead + always.slice(lead.length) : text }
}

/** A word that means the same quoted or not. */
const SIMPLE_WORD = /^[A-Za-z0-9_./:@%+=,-]+$/

/** Where the first syntax error is, for `reasons`. */
function syntaxError(root: Node): string {
  const stack = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === "ERROR" || node.isMissing) {
      const { row, column } = node.startPosition
      return `syntax error at line ${row + 1}, column ${column + 1}${node.isMissing ? ` (missing ${node.type})` : ""}`
    }
    if (node.hasError) stack.push(...[...node.children].reverse())
  }
  return "syntax error"
}

/** Node types whose text keeps a backslash-newline as written. */
const VERBATIM: ReadonlySet<string> = new Set([
  "raw_string",
  "string",
  "ansi_c_string",
  "translated_string",
  "heredoc_body",
  "heredoc_content",
  "comment",
])

/** Removes the line continuations (`\` + newline) that are outside quotes, heredocs and comments. */
function removeContinuations(source: string, root: Node): string {
  let result = ""
  let from = 0
  const pattern = /\\\r?\n/g
  for (let match = pattern.exec(source); match; match = pattern.exec(source)) {
    const at = match.index
    // An escaped backslash (`\\` then a newline) is not a continuation.
    let slashes = 0
    while (at - slashes - 1 >= 0 && source[at - slashes - 1] === "\\") slashes++
    if (slashes % 2 === 1) continue
    let node: Node | null = root.descendantForIndex(at)
    let verbatim = false
    while (node) {
      if (VERBATIM.has(node.type)) {
        verbatim = true
        break
      }
      node = node.parent
    }
    if (verbatim) continue
    result += source.slice(from, at)
    from = at + match[0].length
  }
  return result + source.slice(from)
}
