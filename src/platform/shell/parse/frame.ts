/**
 * The state the scan carries as it walks a command: the shell state that `cd` and assignments change
 * (`State`), where in the source it is walking (`Frame`), and the shapes of words and commands it builds.
 */
import type { Node } from "./parser.ts"
import { type Expansions, type WordValue, wordValues } from "./words.ts"

/** Shell state that `cd` and assignments change as the command runs. */
export interface State {
  cwd: string | undefined
  oldpwd: string | undefined
  stack: (string | undefined)[]
  vars: Map<string, readonly string[] | undefined>
  /** Aliases (and `hash -p` names) defined so far: their text, or undefined when it is not known. */
  aliases: Map<string, string | undefined>
  /** Functions defined so far, with the variables their bodies set (a call may change them). */
  functions: Map<string, readonly string[]>
}

export interface Frame {
  /** The text being walked (the command line, or a nested script), which node indices point into. */
  readonly source: string
  readonly state: State
  /** Redirections of the enclosing compound commands, innermost first. */
  readonly redirects: readonly string[]
  readonly depth: number
  readonly via: string | undefined
  /** Aliases being expanded: bash does not expand an alias again inside its own text. */
  readonly aliasing?: ReadonlySet<string>
  /** Code that may not run (a branch, a loop body, the right of `&&`): its assignments may not happen. */
  readonly conditional?: boolean
}

/** A word of a command: its source text and possible values. */
export interface Token {
  readonly source: string
  readonly values: readonly WordValue[]
}

/** Standard input given to a command in the command line itself (heredoc or here-string). */
export interface Input {
  readonly text: string
  readonly dynamic: boolean
}

/** A command ready for the rules: words, pattern text, redirections. */
export interface CommandView {
  readonly tokens: readonly Token[]
  /** Prefix assignments (`FOO=1`), as written. */
  readonly assignments: readonly string[]
  readonly text: string
  /** Every redirection that applies to it (its own, then the enclosing ones). */
  readonly redirects: readonly string[]
  readonly input: Input | undefined
  readonly via: string | undefined
  /** The wrapper that appends arguments from its input to this command (`xargs`), if any. */
  readonly feeds?: string
}

/** The same frame with a copy of its state, for code that keeps its changes to itself (subshells…). */
export function fork(frame: Frame): Frame {
  const state = frame.state
  return {
    ...frame,
    state: {
      cwd: state.cwd,
      oldpwd: state.oldpwd,
      stack: [...state.stack],
      vars: new Map(state.vars),
      aliases: new Map(state.aliases),
      functions: new Map(state.functions),
    },
  }
}

/** What the scan knows for expanding words in `state`. */
export function expansions(state: State, home: string): Expansions {
  return { home, cwd: state.cwd, oldpwd: state.oldpwd, vars: state.vars }
}

/** A word node as a token: its source text and the values it may expand to in `state`. */
export function tokenOf(node: Node, state: State, home: string): Token {
  return { source: node.text, values: wordValues(node, expansions(state, home)) }
}
