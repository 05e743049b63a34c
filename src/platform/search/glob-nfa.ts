// A glob's program (glob-parse.ts) as a Thompson NFA: states that read one code unit of a set, and splits
// that lead to other states without reading. Run as a set of states over the path, one unit at a time,
// it never backtracks: each step visits every state at most twice, so a match costs at most
// (path length + 1) × 2 × size, whatever the glob. glob-automaton.ts remembers the sets it meets. Groups
// are alternations, extglobs' repeats are loops of splits, and `!(…)` is a small DFA built for the group
// and added as states like any others (glob-negation.ts).
import { CharSet } from "./glob-charset.ts"
import {
  type Fragment,
  MAX_GLOB_NEGATION_STATES,
  type NfaBuilder,
  negationFragment,
} from "./glob-negation.ts"
import type { GlobOp, GroupRepeat } from "./glob-ops.ts"

const UNIT = 0
const SPLIT = 1
const MATCH = 2
/** Only where the path ends: leads to the match when what follows it can match nothing. */
const END = 3

const NOT_SLASH = CharSet.notSlash()
const ANY = CharSet.any()

export class GlobNfa {
  /** How many states the NFA has. */
  readonly size: number
  /** The state reached when the path read so far matches. */
  readonly match: number
  /**
   * Work done so far: states visited by `start` and `advance`. Never more than 2 × `size` per call, which
   * the tests hold it to.
   */
  steps = 0

  readonly #kind: number[] = []
  /** For a unit state: the state after it. */
  readonly #out: number[] = []
  /** For a split or end state: the states it leads to without reading. */
  readonly #next: (number[] | undefined)[] = []
  readonly #sets: (CharSet | undefined)[] = []
  /** States that lead on only when more of the path follows (a `*` picomatch gave a `(?=.)`). */
  readonly #needsMore: boolean[] = []
  /** For an end state: whether the match is reachable from it without reading. */
  readonly #endMatches: boolean[]
  readonly #entry: number
  readonly #mark: Uint32Array
  #generation = 0
  readonly #stack: number[] = []

  constructor(ops: readonly GlobOp[]) {
    this.match = this.#state(MATCH)
    const program = this.#build(ops)
    if (program) this.#link(program.tail, this.match)
    this.#entry = program ? program.start : this.match
    this.size = this.#kind.length
    this.#mark = new Uint32Array(this.size)
    this.#endMatches = this.#matchReachable()
  }

  /** Puts in `into` the states to start from: those reading a unit, and the match (for an empty glob). */
  start(into: number[]): void {
    this.#generation++
    this.#closure(this.#entry, into)
  }

  /** Puts in `into` the states reached from the states `from` by reading the unit `code`. */
  advance(from: Int32Array, code: number, into: number[]): void {
    this.#generation++
    for (const id of from) {
      this.steps++
      if (this.#kind[id] === UNIT && this.#sets[id]!.has(code)) this.#closure(this.#out[id]!, into)
    }
  }

  /** Adds to `into` the unit and match states reachable from `from` without reading, each once. */
  #closure(from: number, into: number[]): void {
    const stack = this.#stack
    stack.push(from)
    while (stack.length > 0) {
      const id = stack.pop()!
      if (this.#mark[id] === this.#generation) continue
      this.#mark[id] = this.#generation
      this.steps++
      const kind = this.#kind[id]
      if (kind === SPLIT) {
        const next = this.#next[id]!
        for (let index = next.length - 1; index >= 0; index--) stack.push(next[index]!)
      } else if (kind !== END) into.push(id)
      else if (this.#endMatches[id]) stack.push(this.match)
    }
  }

  /**
   * For every state: whether the match is reachable from it without reading, and without passing a `*`
   * that needs more of the path. One walk backwards from the match over the links made without reading
   * (which may form cycles: `*(a|)` can go round without reading), each state visited once.
   */
  #matchReachable(): boolean[] {
    const into: number[][] = Array.from({ length: this.size }, () => [])
    for (let id = 0; id < this.size; id++) {
      if (this.#kind[id] === UNIT || this.#needsMore[id]) continue
      for (const to of this.#next[id] ?? []) into[to]!.push(id)
    }
    const reachable = Array.from({ length: this.size }, () => false)
    reachable[this.match] = true
    const stack = [this.match]
    while (stack.length > 0)
      for (const from of into[stack.pop()!]!)
        if (!reachable[from]) {
          reachable[from] = true
          stack.push(from)
        }
    return reachable
  }

  /** Thompson's construction over the flat program, open groups kept on an explicit stack. */
  #build(ops: readonly GlobOp[]): Fragment | undefined {
    const frames: { alternatives: Fragment[]; current: Fragment | undefined; repeat?: GroupRepeat }[] = [
      { alternatives: [], current: undefined },
    ]
    for (const op of ops) {
      const frame = frames.at(-1)!
      switch (op.op) {
        case "unit":
        case "end": {
          const id = op.op === "unit" ? this.#state(UNIT, op.set) : this.#state(END)
          frame.current = this.#concat(frame.current, { start: id, tail: id })
          break
        }
        case "star": {
          const star = this.#repeat(NOT_SLASH)
          if (op.ahead) this.#needsMore[star.start] = true
          frame.current = this.#concat(frame.current, star)
          break
        }
        case "any":
          frame.current = this.#concat(frame.current, this.#repeat(ANY))
          break
        case "open":
          frames.push({ alternatives: [], current: undefined, repeat: op.repeat })
          break
        case "or":
          frame.alternatives.push(frame.current ?? this.#empty())
          frame.current = undefined
          break
        case "close": {
          frames.pop()
          frame.alternatives.push(frame.current ?? this.#empty())
          const parent = frames.at(-1)!
          parent.current = this.#concat(parent.current, this.#group(frame.alternatives, frame.repeat))
          break
        }
      }
    }
    return frames[0]!.current
  }

  /**
   * A group of `alternatives`, matched once, or as its extglob `repeat` says:
   * - once: a split to each alternative, each leading to one join;
   * - `?`: the same split may also go straight to the join;
   * - `+`: from the join, back to the split or on;
   * - `*`: the split leads to each alternative or on, and each alternative back to the split;
   * - `!`: the alternatives as one group made into a DFA and turned around (glob-negation.ts).
   */
  #group(alternatives: readonly Fragment[], repeat: GroupRepeat | undefined): Fragment {
    const split = this.#state(SPLIT)
    const join = this.#state(SPLIT)
    const starts = alternatives.map((alternative) => alternative.start)
    if (repeat === "*") {
      this.#next[split] = [...starts, join]
      for (const alternative of alternatives) this.#link(alternative.tail, split)
      return { start: split, tail: join }
    }
    this.#next[split] = repeat === "?" ? [...starts, join] : starts
    for (const alternative of alternatives) this.#link(alternative.tail, join)
    if (repeat === "+") {
      const exit = this.#state(SPLIT)
      this.#next[join] = [split, exit]
      return { start: split, tail: exit }
    }
    if (repeat === "!") return negationFragment(this.#builder, { start: split, tail: join })
    return { start: split, tail: join }
  }

  /** What glob-negation.ts reads of the states made so far, and how it adds its own. */
  readonly #builder: NfaBuilder = {
    reads: (id) => (this.#kind[id] === UNIT ? this.#sets[id] : undefined),
    out: (id) => this.#out[id]!,
    links: (id) => (this.#kind[id] === SPLIT ? (this.#next[id] ?? []) : []),
    unit: (set, to) => {
      const id = this.#state(UNIT, set)
      this.#out[id] = to
      return id
    },
    split: (next) => {
      const id = this.#state(SPLIT)
      this.#next[id] = next
      return id
    },
    link: (id, next) => {
      this.#next[id] = next
    },
    budget: MAX_GLOB_NEGATION_STATES,
  }

  /** Any run of units of `set`: a split that either reads one and comes back, or goes on. */
  #repeat(set: CharSet): Fragment {
    const loop = this.#state(SPLIT)
    const unit = this.#state(UNIT, set)
    const exit = this.#state(SPLIT)
    this.#out[unit] = loop
    this.#next[loop] = [unit, exit]
    return { start: loop, tail: exit }
  }

  #empty(): Fragment {
    const id = this.#state(SPLIT)
    return { start: id, tail: id }
  }

  #concat(first: Fragment | undefined, second: Fragment): Fragment {
    if (!first) return second
    this.#link(first.tail, second.start)
    return { start: first.start, tail: second.tail }
  }

  #link(tail: number, to: number): void {
    if (this.#kind[tail] === UNIT) this.#out[tail] = to
    else this.#next[tail] = [to]
  }

  #state(kind: number, set?: CharSet): number {
    const id = this.#kind.length
    this.#kind.push(kind)
    this.#out.push(-1)
    this.#next.push(undefined)
    this.#sets.push(set)
    return id
  }
}
