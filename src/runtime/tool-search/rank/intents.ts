// How people phrase what they want done, mapped to the words tools use for doing it. A task says
// "let the team know", "see why the build broke", "tidy up old branches"; the tools say
// send_message, get_logs, delete_branch. Unlike synonyms.ts these run one way (a tool that "sends"
// does not thereby "tell"), and the phrases may hold stop words ("let … know", "find out"), so they
// are matched on the query's words before stop words are dropped. Every entry is general software
// and office usage, the kind any tool search would need; none is written for a particular tool.
import { stem } from "./stem.ts"
import { pieces, terms } from "./terms.ts"

/**
 * [what a person says, what a tool says]. In a phrase, `*` stands for up to three words
 * ("let * know" matches "let the whole team know").
 */
const TABLE: readonly (readonly [readonly string[], string])[] = [
  // Telling someone.
  [
    ["tell", "inform", "let * know", "ping", "announce", "notify", "broadcast", "alert", "heads up", "dm"],
    "send post message notify",
  ],
  [["ask", "reach out", "contact", "write to", "drop * line"], "send message email question"],
  [["reply", "respond", "answer", "follow up"], "reply comment send message"],
  [["mention", "tag"], "mention"],
  // Looking at something.
  [
    [
      "check",
      "see",
      "look",
      "inspect",
      "examine",
      "view",
      "peek",
      "glance",
      "show me",
      "what is",
      "what are",
    ],
    "get list read view status",
  ],
  [["find out", "figure out", "look into", "dig into", "investigate", "discover", "learn"], "search get"],
  [
    ["why", "debug", "diagnose", "troubleshoot", "broke", "broken", "fail", "failing", "went wrong"],
    "log error status trace",
  ],
  [["how many", "how much", "tally"], "count list stats"],
  [["who"], "user member author owner"],
  [["when"], "date time schedule"],
  [["where"], "location path find"],
  [["skim", "catch up", "recap", "gist", "tl dr", "tldr"], "summary read get"],
  [["keep * eye", "keep track", "track", "monitor"], "monitor status list"],
  // Making and changing.
  [["draft", "compose", "write up", "jot", "note down", "write down"], "create write draft note"],
  [["set up", "spin up", "stand up", "provision", "kick off", "bootstrap"], "create start deploy"],
  [["fix", "correct", "sort out", "tweak", "adjust", "amend"], "update edit"],
  [["bump", "upgrade"], "update version"],
  [["rename", "retitle"], "rename update"],
  [["turn on", "switch on", "enable", "activate"], "enable start"],
  [["turn off", "switch off", "disable", "deactivate", "pause"], "disable stop"],
  [["keep", "remember", "stash", "save"], "save store write create"],
  [["grab", "pull down", "pull"], "get download fetch"],
  [["hand off", "hand over", "give * to", "reassign", "put * on"], "assign"],
  [["sign off", "green light", "okay", "ok", "greenlight", "lgtm", "approve", "approval"], "approve review"],
  [["mark * done", "mark * complete", "tick off", "check off", "wrap up"], "complete close"],
  // "Open" and "file" say create before a tracker's things, navigate before a page's.
  [
    [
      ...[
        "open * issue",
        "open * ticket",
        "open * bug",
        "open * pr",
        "open * pull request",
        "open * merge request",
      ],
      ...["file * bug", "file * issue", "file * ticket", "raise * issue", "log * bug", "report * bug"],
    ],
    "create",
  ],
  [["open * site", "open * page", "open * url", "open * link", "open * website"], "navigate visit"],
  // Removing.
  [["clean up", "tidy", "get rid", "prune", "clear out", "clear", "wipe"], "delete remove archive"],
  [["tear down", "shut down", "take down", "wind down"], "delete stop"],
  [["undo", "back out", "go back"], "revert rollback"],
  // Releasing and running.
  [["ship", "go live", "roll out", "push * live", "launch", "publish"], "deploy release publish"],
  [["kick", "rerun", "re run", "retry", "try again"], "run trigger restart"],
  // Time and planning.
  [["remind", "reminder", "nudge", "don t forget"], "reminder task event"],
  [["forget"], "delete remove memory"],
  [["prefer", "preference", "remembered"], "memory observation"],
  [["meet", "catch up", "call with", "standup"], "event meeting calendar schedule"],
  [
    [
      ...["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
      ...["am", "pm", "noon", "morning", "afternoon", "evening", "tonight"],
    ],
    "event calendar schedule time",
  ],
  [["today", "tomorrow", "this week", "next week", "upcoming", "overdue", "late"], "due date event"],
  [["plan", "organize", "prioritize", "backlog", "todo", "to do"], "task list"],
  [["book", "reserve"], "booking reservation create"],
  [["how far", "distance"], "distance"],
  [["near", "nearby", "around", "close to", "next to"], "nearby search place"],
  [["restaurant", "cafe", "bar", "shop", "store", "museum", "hotel", "apartment"], "place search location"],
  [["switch to", "switch"], "checkout context use select"],
  [["set * aside", "put * aside", "for later"], "stash save"],
  [["who wrote", "who changed", "who touched", "touched", "last changed"], "blame history log commit"],
  [["draw", "sketch", "render", "visualize"], "generate create chart diagram"],
  [["bold", "italic", "underline", "font", "highlight", "align", "color"], "format style"],
  // Things.
  [["teammate", "colleague", "coworker", "everyone", "folks", "someone"], "user member team"],
  [["client", "customer", "prospect"], "contact customer company deal"],
  [["bug", "problem", "defect", "glitch"], "issue error"],
  [["outage", "down", "incident", "on call", "oncall", "page"], "incident alert monitor"],
  [["warning", "warnings", "advisory", "watch"], "alert"],
  [["table", "tables", "column", "columns", "rows", "schema"], "query sql schema database"],
  [["sprint", "backlog", "milestone", "epic", "story", "work item"], "issue task work item"],
  [["build", "ci", "pipeline", "checks"], "pipeline build job run workflow"],
  [["code review", "review"], "pull request review"],
  [["spec", "writeup", "write up", "notes", "wiki"], "document page note"],
  [["guide", "handbook", "runbook", "playbook", "readme", "docs"], "document page file"],
  [["cell", "cells", "header row", "header"], "sheet range cell"],
  [["conversation", "thread", "chat"], "message"],
  [["money", "revenue", "sales", "spend", "spent"], "payment invoice order deal cost"],
  [["picture", "snapshot", "snap", "capture"], "screenshot image"],
  [["website", "web page", "webpage", "site", "go to", "visit", "browse"], "navigate url page"],
  [["online", "internet", "web", "google"], "search web"],
  [["latest", "recent", "newest", "last"], "list recent latest"],
]

interface Entry {
  /** The phrase's words, stemmed; "*" is a gap of up to three words. */
  readonly words: readonly string[]
  readonly targets: readonly string[]
}

const entries: Entry[] = []
for (const [phrases, targets] of TABLE) {
  const out = terms(targets)
  for (const phrase of phrases)
    entries.push({ words: phrase.split(" ").map((word) => (word === "*" ? word : stem(word))), targets: out })
}

const GAP = 3

/** The tool-side terms for the intents a text phrases (the text's own terms not left out). */
export function intentTerms(text: string): Set<string> {
  const words = pieces(text).map(stem)
  const out = new Set<string>()
  for (const entry of entries)
    if (matches(words, entry.words)) for (const term of entry.targets) out.add(term)
  return out
}

function matches(words: readonly string[], phrase: readonly string[]): boolean {
  for (let start = 0; start < words.length; start++) if (matchAt(words, start, phrase, 0)) return true
  return false
}

function matchAt(words: readonly string[], at: number, phrase: readonly string[], p: number): boolean {
  if (p === phrase.length) return true
  if (phrase[p] === "*") {
    for (let skip = 1; skip <= GAP; skip++) if (matchAt(words, at + skip, phrase, p + 1)) return true
    return false
  }
  return at < words.length && words[at] === phrase[p] && matchAt(words, at + 1, phrase, p + 1)
}
