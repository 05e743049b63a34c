// `!(a|b)`: any text of one path segment that no alternative matches, as bash reads it. The complement
// of a language is regular, but not by Thompson's construction: the alternatives' NFA fragment is made
// into a DFA (subset construction over classes of code units that no alternative tells apart), completed
// with a dead state, its accepting states flipped, `/` left out; that DFA is then added back as an NFA
// fragment (a DFA is an NFA), so the group nests inside others and others inside it. The DFA is built
// here, eagerly, and bounded: an alternative list whose DFA would pass the bound is refused.
//
// Where this differs from picomatch, whose `!(list)` was a negative look-ahead followed by `[^/]*?`:
// - picomatch refused every span that merely starts with a match: `!(a).ts` did not match `ab.ts`,
//   `!(a|b)x` did not match `abx`, `!(a)*` did not match `a`; here the span is compared whole (bash);
// - picomatch's look-ahead sometimes took in the glob's text after the group (`!(*.d).ts` looked ahead
//   for `*.d.ts`), so what it refused depended on that text; here only the group's own span is compared;
// - the span never holds `/`, even when an alternative would (`!(a/b)` matches any segment text).
import { SearchError } from "./backend.ts"
import { CharSet } from "./glob-charset.ts"

/** An NFA fragment under construction: where it starts, and its one state left to link onwards. */
export interface Fragment {
  readonly start: number
  readonly tail: number
}

/** The states of an NFA under construction (glob-nfa.ts), as read and added to here. */
export interface NfaBuilder {
  /** What a unit state reads; undefined for any other state. */
  reads(id: number): CharSet | undefined
  /** A unit state's next state. */
  out(id: number): number
  /** The states a split state leads to without reading (none for other states, or one not linked yet). */
  links(id: number): readonly number[]
  /** A new unit state reading `set`, leading to `to`. */
  unit(set: CharSet, to: number): number
  /** A new split state leading to `next`. */
  split(next: number[]): number
  link(id: number, next: number[]): void
  /** The DFA states the glob's `!(…)` groups may still use; lowered as they are used. */
  budget: number
}

/** The most DFA states one `!(…)` may need. */
export const MAX_NEGATION_STATES = 256
/** The most DFA states all the `!(…)` of one glob may need together. */
export const MAX_GLOB_NEGATION_STATES = 4_096

const SLASH = 0x2f

/** The classes of code units the alternatives tell apart; `/` is in none (the result never reads it). */
interface UnitClass {
  /** Inclusive [low, high] pairs. */
  readonly ranges: number[]
  /** One unit of the class, to test the alternatives' sets with. */
  readonly sample: number
}

/**
 * The fragment matching what `inner` (an NFA fragment whose tail is not linked yet) does not, within a
 * path segment. Throws a `SearchError` when its DFA needs more states than one group or (with the
 * glob's other `!(…)` groups) `nfa.budget` allows.
 */
export function negationFragment(nfa: NfaBuilder, inner: Fragment): Fragment {
  const units = innerUnits(nfa, inner.start)
  const classes = unitClasses(units.map((id) => nfa.reads(id)!))
  const dfa = subsets(nfa, inner, classes)
  nfa.budget -= dfa.sets.length
  // One split per DFA state; from it, a unit state per DFA state it leads to (reading the union of the
  // classes that lead there), and the exit when the DFA state is not one of the alternatives' matches.
  const exit = nfa.split([])
  const hubs = dfa.sets.map(() => nfa.split([]))
  dfa.moves.forEach((targets, state) => {
    const byTarget = new Map<number, CharSet>()
    targets.forEach((target, index) => {
      const set = byTarget.get(target) ?? new CharSet()
      byTarget.set(target, set)
      const ranges = classes[index]!.ranges
      for (let at = 0; at < ranges.length; at += 2) set.add(ranges[at]!, ranges[at + 1]!)
    })
    const next = [...byTarget].map(([target, set]) => nfa.unit(set, hubs[target]!))
    if (!dfa.matches[state]) next.push(exit)
    nfa.link(hubs[state]!, next)
  })
  return { start: hubs[0]!, tail: exit }
}

/** The unit states reachable from `start` (the fragment's own: its tail leads nowhere yet). */
function innerUnits(nfa: NfaBuilder, start: number): number[] {
  const seen = new Set<number>([start])
  const stack = [start]
  const units: number[] = []
  while (stack.length > 0) {
    const id = stack.pop()!
    const unit = nfa.reads(id) !== undefined
    if (unit) units.push(id)
    for (const to of unit ? [nfa.out(id)] : nfa.links(id))
      if (!seen.has(to)) {
        seen.add(to)
        stack.push(to)
      }
  }
  return units
}

/**
 * The code units but `/`, split into classes that every set holds whole or not at all: each ASCII unit
 * on its own to start with, and the spans between the sets' boundaries above 127; then units no set tells
 * apart are merged (refining one set at a time).
 */
function unitClasses(sets: readonly CharSet[]): UnitClass[] {
  const cuts = new Set<number>([128, 0x10000])
  for (const set of sets) set.boundaries(cuts)
  const spans: [number, number][] = []
  for (let code = 0; code < 128; code++) if (code !== SLASH) spans.push([code, code])
  const sorted = [...cuts].filter((cut) => cut >= 128 && cut <= 0x10000).sort((a, b) => a - b)
  for (let index = 0; index + 1 < sorted.length; index++) spans.push([sorted[index]!, sorted[index + 1]! - 1])
  let classOf = spans.map(() => 0)
  for (const set of new Set(sets)) {
    const renumber = new Map<number, number>()
    classOf = classOf.map((old, span) => {
      const key = old * 2 + (set.has(spans[span]![0]) ? 1 : 0)
      const id = renumber.get(key) ?? renumber.size
      renumber.set(key, id)
      return id
    })
  }
  const classes: UnitClass[] = []
  spans.forEach(([low, high], span) => {
    const id = classOf[span]!
    const unitClass = classes[id]
    if (unitClass) unitClass.ranges.push(low, high)
    else classes[id] = { ranges: [low, high], sample: low }
  })
  return classes
}

interface Dfa {
  /** Each DFA state's NFA states (the fragment's unit states, and its tail when reached). */
  readonly sets: number[][]
  /** For each state, the state each class leads to. */
  readonly moves: number[][]
  /** Whether the state holds the fragment's tail: the text read matches an alternative. */
  readonly matches: boolean[]
}

/** The DFA of `inner` over `classes` by subset construction, complete (the empty set is its dead state). */
function subsets(nfa: NfaBuilder, inner: Fragment, classes: readonly UnitClass[]): Dfa {
  const dfa: Dfa = { sets: [], moves: [], matches: [] }
  const limit = Math.min(MAX_NEGATION_STATES, nfa.budget)
  const byKey = new Map<string, number>()
  const intern = (ids: number[]): number => {
    const key = ids.join(",")
    const known = byKey.get(key)
    if (known !== undefined) return known
    if (dfa.sets.length >= limit)
      throw new SearchError(
        limit < MAX_NEGATION_STATES
          ? `The glob's "!(…)" groups need more than ${MAX_GLOB_NEGATION_STATES.toLocaleString("en-US")} states together to be matched, so nothing was searched. Use fewer "!(…)" groups, or fewer wildcards inside them.`
          : `The glob's "!(…)" group needs more than ${MAX_NEGATION_STATES} states to be matched (its alternatives have many wildcards, "?" or classes after a "*"), so nothing was searched. Use fewer wildcards inside "!(…)", or a glob without "!(…)" that matches more, and leave out what you do not want from the results.`,
      )
    const id = dfa.sets.length
    dfa.sets.push(ids)
    dfa.matches.push(ids.includes(inner.tail))
    byKey.set(key, id)
    return id
  }
  intern(closure(nfa, [inner.start], inner.tail))
  for (let state = 0; state < dfa.sets.length; state++) {
    const set = dfa.sets[state]!
    dfa.moves[state] = classes.map(({ sample }) => {
      const reached: number[] = []
      for (const id of set) if (id !== inner.tail && nfa.reads(id)!.has(sample)) reached.push(nfa.out(id))
      return intern(closure(nfa, reached, inner.tail))
    })
  }
  return dfa
}

/** The unit states (and `tail`) reachable from `from` without reading, ascending. */
function closure(nfa: NfaBuilder, from: readonly number[], tail: number): number[] {
  const seen = new Set<number>()
  const stack = [...from]
  const found: number[] = []
  while (stack.length > 0) {
    const id = stack.pop()!
    if (seen.has(id)) continue
    seen.add(id)
    if (id === tail || nfa.reads(id) !== undefined) found.push(id)
    else for (const to of nfa.links(id)) stack.push(to)
  }
  return found.sort((a, b) => a - b)
}
