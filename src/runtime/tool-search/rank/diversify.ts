// Covering a query's several intents: a whole task ("find the failing test, open an issue, tell the
// team on Slack") should not fill the top ten with one intent's tools. Greedy selection: each pick is
// the candidate whose remaining value is highest, where a query term already matched by earlier picks
// counts less each time it is matched again.

export interface Candidate {
  readonly doc: number
  /** Score not tied to single terms (name coverage, server evidence). */
  readonly base: number
  /** Each query term's contribution to this candidate's score. */
  readonly terms: ReadonlyMap<string, number>
}

/**
 * Picks `limit` candidates. `decay` (0..1) is what a term is worth once already covered (squared
 * twice, and so on); a term counts as covered by a pick when it gave that pick at least `share` of
 * its score.
 */
export function diversify(
  candidates: readonly Candidate[],
  limit: number,
  options: { readonly decay: number; readonly share: number },
): Candidate[] {
  const covered = new Map<string, number>()
  const left = [...candidates]
  const picked: Candidate[] = []
  while (picked.length < limit && left.length > 0) {
    let best = 0
    let bestValue = Number.NEGATIVE_INFINITY
    for (const [i, candidate] of left.entries()) {
      let value = candidate.base
      for (const [term, contribution] of candidate.terms)
        value += contribution * options.decay ** (covered.get(term) ?? 0)
      if (value > bestValue) {
        bestValue = value
        best = i
      }
    }
    const chosen = left.splice(best, 1)[0]!
    picked.push(chosen)
    let total = chosen.base
    for (const contribution of chosen.terms.values()) total += contribution
    for (const [term, contribution] of chosen.terms)
      if (contribution >= options.share * total) covered.set(term, (covered.get(term) ?? 0) + 1)
  }
  return picked
}
