// A light English stemmer for tool search: folds the inflections a query and a tool definition are
// likely to disagree on (creates/creating/created → one form, issues → issue, queries → query) and
// nothing more. The forms it makes need not be words; they only have to agree with each other.

/** Past forms and plurals no suffix rule can fold, to the form the rules give their base word. */
const IRREGULAR: Readonly<Record<string, string>> = {
  sent: "send",
  ran: "run",
  found: "find",
  made: "make",
  got: "get",
  gotten: "get",
  wrote: "write",
  written: "write",
  built: "build",
  began: "begin",
  begun: "begin",
  bought: "buy",
  taken: "take",
  took: "take",
  given: "give",
  gave: "give",
  shown: "show",
  chosen: "choose",
  children: "child",
  people: "person",
  indices: "index",
  indexes: "index",
  data: "data",
  analyses: "analysis",
  statuses: "status",
  aliases: "alias",
}

/** Words a suffix rule would break ("this" is not "thi", "news" is not "new"). */
const KEEP = new Set([
  "this",
  "news",
  "status",
  "alias",
  "canvas",
  "analysis",
  "access",
  "address",
  "process",
  "class",
  "bus",
  "gas",
  "dns",
  "https",
  "kubernetes",
  "aws",
  "gcs",
  "sms",
  "ios",
  "macos",
  "redis",
  "postgres",
  "jenkins",
  "series",
  "species",
  "thing",
  "string",
  "spring",
  "ring",
  "king",
  "bring",
  "ping",
  "during",
  "embed",
  "feed",
  "need",
  "seed",
  "speed",
  "shed",
  "bed",
  "red",
])

const VOWEL = /[aeiouy]/

/** The stem of one lower-case word; other scripts and short words come back unchanged. */
export function stem(word: string): string {
  const irregular = IRREGULAR[word]
  if (irregular !== undefined) return finalE(irregular)
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word
  if (KEEP.has(word)) return word
  let w = word
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`
  else if (w.endsWith("ied") && w.length > 4) w = `${w.slice(0, -3)}y`
  else if (w.endsWith("sses") || w.endsWith("xes") || w.endsWith("ches") || w.endsWith("shes"))
    w = w.slice(0, -2)
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1)
  else if (w.endsWith("ing") && VOWEL.test(w.slice(0, -3)) && w.length > 5) w = undouble(w.slice(0, -3))
  else if (w.endsWith("ed") && !w.endsWith("eed") && VOWEL.test(w.slice(0, -2)) && w.length > 4)
    w = undouble(w.slice(0, -2))
  return finalE(w)
}

/** runn → run, stopp → stop; not call → cal (Porter's rule keeps l, s and z doubled). */
function undouble(w: string): string {
  const last = w.at(-1)!
  if (w.length > 3 && last === w.at(-2) && !/[aeiouylsz]/.test(last)) return w.slice(0, -1)
  return w
}

/** create, creat(ing) and creat(ed) meet at "creat": a final e is dropped, "ee" kept. */
function finalE(w: string): string {
  return w.length > 3 && w.endsWith("e") && !w.endsWith("ee") ? w.slice(0, -1) : w
}
