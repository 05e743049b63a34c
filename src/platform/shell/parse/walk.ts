/**
 * Why one file of ~600 lines: the walk is one recursion over the syntax tree whose cases (commands,
 * wrappers, nested scripts, assignments, `cd`, aliases, functions) all read and update the same frame
 * state; split apart, each piece would need that state passed in and out. The tables it consults live
 * beside it (wrappers.ts, operands.ts, aliases.ts, command-word.ts).
 *
 * The tree walk: parses the command line (and shell code nested in strings), finds every command
 * wherever it sits, records each with its patterns, and follows wrappers, nested scripts, `cd` and
 * assignments as it goes. See `scan.ts` for the rules.
 */
import { ALIAS_COMMANDS, ANY_ALIAS, assignAliasTable, defineAliases } from "./aliases.ts"
import { alwaysOf, exactPattern, plainSpelling } from "./always.ts"
import { commandWord, commandWordVariants, withPlaceholder } from "./command-word.ts"
import { removeContinuations } from "./continuations.ts"
import { PathChecks } from "./external-paths.ts"
import { type CommandView, expansions, type Frame, fork, type Token, tokenOf } from "./frame.ts"
import { isFileCommand, pathOperands } from "./operands.ts"
import type { Node, Tree } from "./parser.ts"
import { patternText } from "./pattern-text.ts"
import { Findings, syntaxError } from "./reasons.ts"
import {
  type RedirectionContext,
  type Redirections,
  readRedirections,
  withRedirections,
} from "./redirections.ts"
import type { ScannedCommand } from "./scanned-command.ts"
import { startupFileReason, uncheckedReason, unknownAlias } from "./unchecked.ts"
import { assign, forget, forgetAll, mergeBack, setAtRunTime } from "./variables.ts"
import { knownValue, wordValues } from "./words.ts"
import { CD_FAMILY, changeDirectory, directoryOf } from "./working-directory.ts"
import { type Inner, unwrap } from "./wrappers.ts"

/**
 * Reserved words the grammar can leave as command words after a wrapper it does not know takes a
 * compound command (`time { …; }`, `coproc while …; do …; done`): an opener is followed by a command,
 * a closer ends one.
 */
const OPENERS: ReadonlySet<string> = new Set(["{", "!", "do", "then", "else", "elif", "if", "while", "until"])
const CLOSERS: ReadonlySet<string> = new Set(["}", "done", "fi", "esac"])

/** Deepest nesting of shell code in strings (`bash -c "eval '…'"`) the scan follows. */
const MAX_DEPTH = 8

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
  "PS0",
  "PS1",
  "PS2",
  "PS4",
  "GIT_SSH_COMMAND",
  "GIT_EXEC_PATH",
])

/** Variables whose value is shell code the shell runs (or expands, running its substitutions) later. */
const CODE_VARIABLES: ReadonlySet<string> = new Set(["PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS4"])

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

/** Walks shell source and collects its commands, the paths to check, and the reasons. */
export class Scanner {
  readonly commands: ScannedCommand[] = []
  readonly findings = new Findings()
  readonly paths: PathChecks
  private readonly parser: { parse(source: string): Tree | null }
  private readonly home: string
  /** What the redirection and directory helpers need from the walk. */
  private readonly context: RedirectionContext

  constructor(parser: { parse(source: string): Tree | null }, home: string) {
    this.parser = parser
    this.home = home
    this.paths = new PathChecks(home, this.findings)
    this.context = {
      home,
      paths: this.paths,
      findings: this.findings,
      nested: (node, frame) => this.nested(node, frame),
    }
  }

  // ----- parsing -------------------------------------------------------------------------------------

  /** Parses and walks shell source (the command line, or a nested script). */
  script(source: string, frame: Frame, via: string | undefined): void {
    if (frame.depth > MAX_DEPTH) {
      this.findings.fail(`${via ?? "script"}: shell code nested more than ${MAX_DEPTH} levels deep`)
      return
    }
    const parsed = this.parse(source)
    if (!parsed) {
      this.findings.fail(`${via ?? "command"}: the parser produced no tree`)
      return
    }
    const { tree } = parsed
    try {
      const root = tree.rootNode
      if (root.hasError) this.findings.fail(`${via ? `${via}: ` : ""}${syntaxError(root)}`)
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
      case "function_definition": {
        // The body runs whenever the function is called, if ever: its assignments may hold afterwards.
        const body = { ...fork(frame), conditional: true }
        this.sequence(node.children, body)
        const name = node.childForFieldName("name")?.text
        if (name) frame.state.functions.set(name, mergeBack(frame.state, body.state))
        return
      }
      case "for_statement":
        this.forLoop(node, frame)
        return
      case "if_statement":
      case "while_statement":
      case "c_style_for_statement":
      case "case_statement":
        this.sequence(node.children, { ...frame, conditional: true })
        return
      case "list": {
        // `a && b`, `a || b`: only the first command surely runs.
        const [first, ...rest] = node.namedChildren
        if (first) this.walk(first, frame)
        for (const child of rest) this.walk(child, { ...frame, conditional: true })
        return
      }
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
      readRedirections(redirects, frame, this.context)
      const text = patternText(node, frame, this.findings)
      this.record({
        text,
        name: "",
        argv: [],
        always: exactPattern(text),
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
      // In a list (`a && b`), only the first command surely runs.
      const later = body.type === "list" ? { ...frame, conditional: true } : frame
      stages.slice(0, -1).forEach((stage, i) => {
        this.walk(stage, pipeline ? fork(frame) : i === 0 ? frame : later)
      })
      const last = stages.at(-1)
      if (last)
        this.redirectedBody(last, redirects, pipeline ? fork(frame) : stages.length > 1 ? later : frame)
      return
    }
    const redirections = readRedirections(redirects, frame, this.context)
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
    const own = readRedirections(inline, frame, this.context)
    const extra = [...own.extra, ...(outer?.extra ?? [])].sort((a, b) => a.startIndex - b.startIndex)
    for (const word of extra) this.nested(word, frame)
    const outerTexts = outer?.texts ?? []
    const text = withRedirections(node, outer, frame, this.findings)
    const tokens = [...words, ...extra].map((word) => tokenOf(word, frame.state, this.home))
    // The grammar drops a lone `-` before a heredoc (`python3 - <<EOF`): put the argument back.
    const firstOuter = outer?.nodes[0]
    if (firstOuter && frame.source.slice(node.endIndex, firstOuter.startIndex).trim() === "-") {
      tokens.splice(words.length, 0, { source: "-", values: [{ text: "-", dynamicAt: 1, globAt: 1 }] })
    }
    this.process(
      {
        tokens,
        assignments: assignments.map((assignment) => patternText(assignment, frame, this.findings)),
        text,
        redirects: [...own.texts, ...outerTexts, ...frame.redirects],
        input: outer?.input ?? own.input,
        via: frame.via,
      },
      frame,
    )
    this.trailing(own.trailing, frame)
  }

  /**
   * One simple command, wherever it was found (the command line, a nested script, inside a wrapper):
   * 1. Read its command word (`command-word.ts`): one normalisation for every command.
   * 2. Reserved words the grammar leaves as words after a wrapper (`time { rm x; }`,
   *    `coproc while …; do rm x; done`): the command after the opener is walked; closers run nothing.
   * 3. `cd` and friends move the working directory; `alias`, `unalias` and `hash -p` define names.
   * 4. An alias is recorded as written and its text is walked as the command it stands for.
   * 5. Record the pattern, its "always" pattern and plain spelling, and, when the rules cannot check
   *    what it runs (`unchecked.ts`), why.
   * 6. Check its path operands, then walk what it wraps (`wrappers.ts`): commands, scripts, input.
   */
  private process(command: CommandView, frame: Frame): void {
    const { tokens } = command
    const words = tokens.map((token) => knownValue(token.values) ?? token.source)
    const cwd = frame.state.cwd
    const entry = { text: command.text, name: words[0] ?? "", argv: words, via: command.via, cwd }
    if (tokens.length === 0) {
      this.record({ ...entry, always: exactPattern(command.text), asks: true })
      return
    }
    const variants = commandWordVariants(tokens[0]!, frame.state)
    if (variants) {
      for (const first of variants) this.process(withCommandWord(command, first), frame)
      return
    }
    const word = commandWord(tokens[0]!)
    // Reserved words and aliases are recognised only when written unquoted: `"{"` and `'r'` are commands.
    const literal = knownValue(tokens[0]!.values)
    const bare = literal !== undefined && tokens[0]!.source === literal ? literal : undefined
    if (bare !== undefined && (OPENERS.has(bare) || CLOSERS.has(bare))) {
      if (OPENERS.has(bare) && tokens.length > 1) {
        const text = command.text.startsWith(`${bare} `) ? command.text.slice(bare.length + 1) : command.text
        this.process({ ...command, tokens: tokens.slice(1), assignments: [], text }, frame)
      }
      return
    }
    const base = word.kind === "literal" ? word.base : undefined
    if (base !== undefined && CD_FAMILY.has(base)) {
      this.record({ ...entry, always: undefined, asks: false })
      changeDirectory(base, tokens, frame.state, this.context)
      return
    }
    if (base !== undefined && ALIAS_COMMANDS.has(base)) defineAliases(base, tokens, frame.state)
    const aliases = frame.state.aliases
    if (bare !== undefined && (aliases.has(bare) || aliases.has(ANY_ALIAS)) && !frame.aliasing?.has(bare)) {
      this.alias(bare, command, frame)
      return
    }
    const inners = unwrap(words)
    const unchecked = uncheckedReason({ command, word, words, inners })
    const always = alwaysOf(command, words, inners)
    const plain = plainSpelling(command, words, base, always)
    this.record({ ...entry, always, asks: true, plain, ...(unchecked !== undefined ? { unchecked } : {}) })
    if (word.kind === "computed")
      this.findings.note(`the command name is not known before it runs: ${tokens[0]!.source}`)
    for (const operand of pathOperands(words)) {
      const token = tokens[operand.index]
      if (token) this.paths.checkToken(token, operand.offset, operand.kind, frame.state)
    }
    for (const inner of inners) this.inner(inner, command, words, frame)
    // What runs in this shell may set variables: those it names, or (unchecked code) any of them.
    if (unchecked !== undefined) forgetAll(frame.state)
    else forget(frame.state, setAtRunTime(base, words, command.text))
    const called = bare === undefined ? undefined : frame.state.functions.get(bare)
    if (called) forget(frame.state, called)
  }

  /** What a command wraps (`wrappers.ts`): a command, shell code in its words, or shell code on its input. */
  private inner(inner: Inner, command: CommandView, words: readonly string[], frame: Frame): void {
    const { tokens } = command
    if (inner.kind === "exec") {
      const wrapped = tokens
        .slice(inner.start, inner.end)
        .map((token) => withPlaceholder(token, inner.placeholder))
      let state = frame.state
      if (inner.chdir !== undefined) {
        const target = tokens[inner.chdir]
        state = fork(frame).state
        if (target) {
          this.paths.checkToken(target, 0, "dir", frame.state)
          state.cwd = directoryOf(target, frame.state, this.findings)
        }
      }
      if (inner.input && isFileCommand(words[inner.start]!)) {
        this.findings.note(
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
          // Words from input land at the end of the wrapped command too (`xargs sudo sh -c`).
          ...(inner.input
            ? { feeds: inner.via }
            : command.feeds && inner.end === words.length
              ? { feeds: command.feeds }
              : {}),
        },
        { ...frame, state },
      )
    } else if (inner.kind === "script") {
      const parts = tokens.slice(inner.from, inner.to)
      const dynamic = parts.some((token) => knownValue(token.values) === undefined)
      if (dynamic) this.findings.note(`${inner.via} runs shell code built from expansions: ${command.text}`)
      const texts = parts.map((token) => token.values[0]?.text ?? token.source)
      if (inner.prefix !== undefined && texts.length > 0) texts[0] = texts[0]!.slice(inner.prefix)
      const nested = inner.via === "eval" ? frame : fork(frame)
      this.script(
        texts.join(" "),
        { ...nested, redirects: command.redirects, depth: frame.depth + 1, via: inner.via },
        inner.via,
      )
    } else if (command.input && !inner.file) {
      if (command.input.dynamic)
        this.findings.note(`${inner.via} runs shell code built from expansions: ${command.text}`)
      const nested = fork(frame)
      this.script(command.input.text, { ...nested, depth: frame.depth + 1, via: inner.via }, inner.via)
    } else {
      this.findings.note(
        `${inner.via} reads commands from ${inner.file ?? "its standard input"}, which the scan cannot see`,
      )
    }
  }

  /**
   * A command whose name is an alias: recorded as written (a rule about `r` still applies), then its
   * text followed by the command's other words is walked as shell code in this shell, where the alias
   * is not expanded again. An alias whose text is unknown cannot be checked.
   */
  private alias(name: string, command: CommandView, frame: Frame): void {
    const text = frame.state.aliases.get(name)
    const entry = { text: command.text, name, argv: [name], via: command.via, cwd: frame.state.cwd }
    if (text === undefined) {
      this.record({ ...entry, always: exactPattern(command.text), asks: true, unchecked: unknownAlias(name) })
      return
    }
    this.record({ ...entry, always: exactPattern(command.text), asks: true })
    const rest = command.tokens.slice(1).map((token) => token.source)
    const source = [...command.assignments, text, ...rest, ...command.redirects].join(" ")
    const aliasing = new Set([...(frame.aliasing ?? []), name])
    this.script(source, { ...frame, depth: frame.depth + 1, via: `alias ${name}`, aliasing }, `alias ${name}`)
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
    const text = withRedirections(node, outer, frame, this.findings)
    const always =
      text === keyword ? keyword : text.startsWith(`${keyword} `) ? `${keyword} *` : exactPattern(text)
    const declared = node.namedChildren.map((child) => child.childForFieldName("name")?.text ?? child.text)
    const unchecked = declared.map(startupFileReason).find((reason) => reason !== undefined)
    this.record({
      text,
      name: keyword,
      argv: [keyword],
      always,
      asks: true,
      via: frame.via,
      cwd: frame.state.cwd,
      ...(unchecked ? { unchecked } : {}),
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
        ? wordValues(value, expansions(frame.state, this.home))
        : [{ text: "", dynamicAt: 0, globAt: 0 }]
      values = expanded.every((part) => part.dynamicAt === part.text.length)
        ? expanded.map((part) => part.text)
        : undefined
    }
    if (!assignAliasTable(name, values, frame.state))
      assign(frame.state, name, values, frame.conditional ?? false)
    // Shell code the shell runs later (`PROMPT_COMMAND`) or expands, running its `$( … )` (`PS4`).
    if (CODE_VARIABLES.has(name) && values?.length === 1 && values[0] !== "") {
      this.script(values[0]!, { ...fork(frame), depth: frame.depth + 1, via: name }, name)
    }
    if (!declared && SENSITIVE_VARIABLES.has(name)) {
      const text = [patternText(node, frame, this.findings), ...frame.redirects].join(" ")
      const unchecked = startupFileReason(name)
      this.record({
        text,
        name,
        argv: [],
        always: exactPattern(text),
        asks: true,
        via: frame.via,
        cwd: frame.state.cwd,
        ...(unchecked ? { unchecked } : {}),
      })
    }
  }

  private forLoop(node: Node, frame: Frame): void {
    const variable = node.childForFieldName("variable")?.text
    const values = node.childrenForFieldName("value")
    for (const value of values) this.nested(value, frame)
    if (variable !== undefined) {
      let known: string[] | undefined = values.length === 0 ? undefined : []
      for (const value of values) {
        const expanded = wordValues(value, expansions(frame.state, this.home))
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
        this.walk(child, { ...frame, conditional: true })
    }
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
    unchecked?: string
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
      ...(command.unchecked !== undefined ? { unchecked: command.unchecked } : {}),
    })
  }
}

/**
 * `command` with its command word replaced by `first` (one word, or the words it splits into). A split
 * word is written out in the pattern (`c="rm x"; $c` gives `rm x`), so rules see the words that run.
 */
function withCommandWord(command: CommandView, first: readonly Token[]): CommandView {
  const tokens = [...first, ...command.tokens.slice(1)]
  if (first.length === 1 && first[0]!.source === command.tokens[0]!.source) return { ...command, tokens }
  const text = [...command.assignments, ...tokens.map((token) => token.source), ...command.redirects].join(
    " ",
  )
  return { ...command, tokens, text }
}
