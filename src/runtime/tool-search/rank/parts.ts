// The parts of a query that asks for several things at once: a whole task ("list the open issues on
// GitHub, then post a summary to Slack") is split into its clauses at punctuation and at the words
// that join clauses, so each intent can be searched for on its own. A short query is one part.

/** Where one clause ends: punctuation (Latin and CJK) or a joining word between clauses. */
const BOUNDARY =
  /[,;:!?()\n\r\t。，、；：！？]|\.(?=\s|$)|\s(?:and then|and also|and|then|after that|afterwards|also|plus|finally)\s|并且|然后|接着/giu

/** The clauses of `query`, in order, blank ones left out. */
export function queryParts(query: string): string[] {
  return query
    .split(BOUNDARY)
    .map((part) => part.trim())
    .filter((part) => part !== "")
}
