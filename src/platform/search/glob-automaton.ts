// The NFA of a glob (glob-nfa.ts) run as a DFA built lazily: each set of NFA states met becomes a DFA
// state, numbered, with its transitions remembered in one flat table, so once a glob's few sets have been
// seen, matching costs one array lookup per code unit. Working out a transition is one NFA step (at most
// 2 × NFA size), so a match costs at most (path length + 1) × 2 × NFA size even when nothing is remembered.
import { GlobNfa } from "./glob-nfa.ts"
import type { GlobOp } from "./glob-ops.ts"

/** The state whose set is empty: nothing read after it can match. */
const DEAD = 0

/** DFA states remembered before the table is emptied (each row holds 128 transitions, 512 bytes). */
const MAX_DFA_STATES = 2_048
/** NFA states the remembered DFA states may hold in all, so that a huge glob cannot hold much memory. */
const MAX_DFA_IDS = 1 << 20

export class GlobAutomaton {
  readonly nfa: GlobNfa
  /**
   * Changes whenever the remembered states are forgotten (a glob whose sets keep changing, as a
   * pathological one's can, would otherwise hold ever more): a state number from an earlier epoch no
   * longer means the same state and must not be used.
   */
  epoch = 0
  readonly #start: number

  /** Row `state` × 128 + unit: the state after reading that ASCII unit, -1 until worked out. */
  #table = new Int32Array(16 * 128).fill(-1)
  #accepts = new Uint8Array(16)
  /** Each state's NFA states, ascending. */
  readonly #sets: Int32Array[] = []
  /** Transitions on units of 128 and above. */
  readonly #other: (Map<number, number> | undefined)[] = []
  readonly #byKey = new Map<string, number>()
  #heldIds = 0

  constructor(ops: readonly GlobOp[]) {
    this.nfa = new GlobNfa(ops)
    this.#intern([])
    const start: number[] = []
    this.nfa.start(start)
    this.#start = this.#intern(start)
  }

  /** The state before anything is read. */
  get start(): number {
    return this.#start
  }

  /** Whether the text read to reach `state` matches the glob. */
  accepts(state: number): boolean {
    return this.#accepts[state] === 1
  }

  /** The state after reading `text` from `state`; stops early once nothing can match. */
  run(state: number, text: string): number {
    let current = state
    let table = this.#table
    for (let index = 0; index < text.length && current !== DEAD; index++) {
      const code = text.charCodeAt(index)
      let next = code < 128 ? table[(current << 7) | code]! : -1
      if (next < 0) {
        next = this.#work(current, code)
        table = this.#table
      }
      current = next
    }
    return current
  }

  /** The state after reading the unit `code` from `state`. */
  step(state: number, code: number): number {
    const next = code < 128 ? this.#table[(state << 7) | code]! : -1
    return next < 0 ? this.#work(state, code) : next
  }

  /** Works out (or finds among the non-ASCII ones) the transition from `state` on `code`, and remembers it. */
  #work(state: number, code: number): number {
    const known = code < 128 ? undefined : this.#other[state]?.get(code)
    if (known !== undefined) return known
    const reached: number[] = []
    this.nfa.advance(this.#sets[state]!, code, reached)
    const epoch = this.epoch
    const next = this.#intern(reached)
    // After a reset `state` may number another set: its transition is not remembered.
    if (this.epoch !== epoch) return next
    if (code < 128) this.#table[(state << 7) | code] = next
    else {
      let other = this.#other[state]
      if (!other) this.#other[state] = other = new Map()
      other.set(code, next)
    }
    return next
  }

  /** The number of the DFA state for a set of NFA states, made once and remembered. */
  #intern(ids: number[]): number {
    const set = Int32Array.from(ids).sort()
    const key = set.join(",")
    const known = this.#byKey.get(key)
    if (known !== undefined) return known
    if (this.#sets.length >= MAX_DFA_STATES || this.#heldIds + set.length > MAX_DFA_IDS) this.#forget()
    const id = this.#sets.length
    if (id === this.#accepts.length) this.#grow()
    this.#sets.push(set)
    this.#other.push(undefined)
    this.#accepts[id] = set.includes(this.nfa.match) ? 1 : 0
    this.#byKey.set(key, id)
    this.#heldIds += set.length
    return id
  }

  #grow(): void {
    const table = new Int32Array(this.#table.length * 2).fill(-1)
    table.set(this.#table)
    this.#table = table
    const accepts = new Uint8Array(this.#accepts.length * 2)
    accepts.set(this.#accepts)
    this.#accepts = accepts
  }

  /** Forgets every state but the dead one and the start, and every transition. */
  #forget(): void {
    const kept = this.#start + 1
    this.#sets.length = kept
    this.#other.length = 0
    for (let id = 0; id < kept; id++) this.#other.push(undefined)
    this.#table.fill(-1)
    this.#byKey.clear()
    this.#heldIds = 0
    this.#sets.forEach((set, id) => {
      this.#byKey.set(set.join(","), id)
      this.#heldIds += set.length
    })
    this.epoch++
  }
}
