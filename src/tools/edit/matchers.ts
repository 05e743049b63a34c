/**
 * The edit tool's matcher chain and `replace`, re-exported from the modules that implement them:
 * - match-context.ts: matcher names, candidate spans, the per-call match context;
 * - normalise-text.ts, match-search.ts: the text forms and search primitives the matchers share;
 * - substring-matchers.ts, whitespace-matchers.ts, anchor-matchers.ts, escape-matcher.ts: the matchers;
 * - matcher-chain.ts: the chain, in order;
 * - replace.ts (with apply-match.ts, line-numbers.ts, replace-result.ts): the chain driver.
 */
export { BLOCK_ANCHOR_THRESHOLD } from "./anchor-matchers.ts"
export { type Candidate, MatchContext, type Matcher, type MatcherName } from "./match-context.ts"
export { MATCHERS } from "./matcher-chain.ts"
export { unescapeString } from "./normalise-text.ts"
export { isDisproportionate, replace } from "./replace.ts"
export { EMPTY_MESSAGE, IDENTICAL_MESSAGE, NOT_FOUND_MESSAGE, type ReplaceResult } from "./replace-result.ts"
