// Text to search terms: split identifiers and prose alike (`_`, `-`, `.`, `/`, camelCase, letters
// against digits), lower-case, drop words that carry no intent, stem. Han, kana and Hangul have no
// spaces between words, so their runs become single characters and character bigrams: a Chinese
// query then meets a Chinese description without a dictionary, and English names still meet English.
import { stem } from "./stem.ts"

/** English function words, and words that say nothing about which tool is wanted. */
const STOP = new Set(
  (
    "a an and are as at be been being but by can could do does did for from has have had he her him his how " +
    "i if in into is it its itself me my mine of on or our ours she should so than that the their them then " +
    "there these they this those to too us was we were what when where which while who whom why will with " +
    "would you your yours via per also just only very each any some such not no nor own same both other " +
    "about above after again against all am before below between during further here more most once over " +
    "under until up down out off through again ever etc e.g eg ie i.e " +
    "tool tools please using use want need help let lets like something thing things way able " +
    "given specified specific provided based must may might shall"
  ).split(" "),
)

const CJK_CLASS = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}"
const CJK = new RegExp(`[${CJK_CLASS}]`, "u")
/** A run of letters and digits; one holding CJK is split again by MIXED ("adcode查询" is two runs). */
const RUN = /[\p{L}\p{N}]+/gu
const MIXED = new RegExp(`[${CJK_CLASS}]+|[[\\p{L}\\p{N}]--[${CJK_CLASS}]]+`, "gv")
/** Any character from U+1100 (Hangul's start) on: below it nothing is CJK. */
const HIGH = /[\u1100-\uffff]/

/** A single Han, kana or Hangul character: weak evidence alone, next to the bigrams it is part of. */
export function isCjkChar(term: string): boolean {
  return term.length === 1 && CJK.test(term)
}

/** The lower-cased pieces of a text, before stop words and stemming (CJK as chars and bigrams). */
export function pieces(text: string): string[] {
  const out: string[] = []
  for (const match of text.matchAll(RUN)) {
    const run = match[0]
    if (HIGH.test(run)) for (const part of run.matchAll(MIXED)) addRun(part[0], out)
    else addRun(run, out)
  }
  return out
}

function addRun(run: string, out: string[]): void {
  if (CJK.test(run[0]!)) {
    cjkGrams(run, out)
    return
  }
  // Most words are plain or capitalised: no identifier to split.
  if (/^\p{Lu}?[a-z]+$/u.test(run)) {
    out.push(run.toLowerCase())
    return
  }
  const parts = splitIdentifier(run)
  for (const part of parts) out.push(part.toLowerCase())
  // "s3", "ec2", "oauth2": the whole also names the thing, so keep it beside its parts.
  if (parts.length > 1 && run.length <= 8 && /\d/.test(run) && /\p{L}/u.test(run)) out.push(run.toLowerCase())
}

/** Search terms: pieces without stop words, stemmed. */
export function terms(text: string): string[] {
  const out: string[] = []
  for (const piece of pieces(text)) {
    if (STOP.has(piece)) continue
    out.push(stemmed(piece))
  }
  return out
}

/** The stop words of a text, stemmed: dropped from prose, but a tool's name may hold one (get_my_cards). */
export function stopTerms(text: string): string[] {
  return pieces(text)
    .filter((piece) => STOP.has(piece))
    .map(stemmed)
}

/**
 * Adjacent Latin words of a text joined and stemmed ("roll back" → rollback, "log in" → login,
 * "user agent" → useragent): names often write as one word what a query writes as two.
 */
export function joinedTerms(text: string): string[] {
  const list = pieces(text)
  const out: string[] = []
  for (let i = 0; i + 1 < list.length; i++) {
    const a = list[i]!
    const b = list[i + 1]!
    if (/^[a-z]+$/.test(a) && /^[a-z]+$/.test(b)) out.push(stemmed(a + b))
  }
  return out
}

/** Terms of an identifier: like `terms`, but nothing is a stop word in a name (`list_all`). */
export function nameTerms(name: string): string[] {
  return pieces(name).map(stemmed)
}

/** Stems remembered: a corpus repeats its words, and building an index stems each occurrence. */
const stems = new Map<string, string>()

function stemmed(piece: string): string {
  let out = stems.get(piece)
  if (out === undefined) {
    out = stem(piece)
    if (stems.size >= 50_000) stems.clear()
    stems.set(piece, out)
  }
  return out
}

/** getHTTPResponse2 → get, HTTP, Response, 2. */
function splitIdentifier(run: string): string[] {
  return run.match(/\p{Lu}+(?![\p{Ll}])|\p{Lu}?\p{Ll}+|\p{Lu}|\p{N}+|\p{L}+/gu) ?? [run]
}

function cjkGrams(run: string, out: string[]): void {
  const chars = [...run]
  for (let i = 0; i < chars.length; i++) {
    out.push(chars[i]!)
    if (i + 1 < chars.length) out.push(chars[i]! + chars[i + 1]!)
  }
}
