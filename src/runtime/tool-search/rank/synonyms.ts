// A small, general table of words that name the same intent in software and office vocabulary.
// A query word also looks for its group's other words, at a weight below the word itself
// (the caller decides how much). Entries may be phrases ("pull request"); they are matched as
// consecutive query terms. Written from common usage, not from any list of queries.
import { terms } from "./terms.ts"

const GROUPS: readonly (readonly string[])[] = [
  ["get", "fetch", "retrieve", "read", "obtain", "show", "view", "load", "lookup"],
  ["create", "add", "new", "make", "open", "insert", "generate"],
  ["delete", "remove", "erase", "drop", "destroy", "purge", "trash"],
  ["update", "edit", "modify", "change", "set", "patch", "rename", "alter"],
  ["list", "enumerate", "all", "browse", "index"],
  ["search", "find", "query", "lookup", "look up", "locate", "filter"],
  ["send", "post", "publish", "submit", "share", "notify"],
  ["run", "execute", "invoke", "trigger", "launch", "start", "call"],
  ["stop", "cancel", "kill", "terminate", "halt", "abort"],
  ["repo", "repository", "codebase", "project"],
  ["pr", "pull request", "merge request", "mr"],
  ["issue", "ticket", "bug", "task", "incident"],
  ["message", "msg", "chat", "dm", "conversation"],
  ["doc", "document", "page", "note", "article", "wiki"],
  ["image", "picture", "photo", "screenshot", "img", "png", "jpg"],
  ["email", "mail", "inbox", "gmail"],
  ["db", "database", "sql", "postgres", "mysql", "sqlite"],
  ["file", "document", "attachment"],
  ["record", "row", "entry", "item", "entity", "object"],
  ["field", "column", "property", "attribute"],
  ["folder", "directory", "dir"],
  ["url", "link", "webpage", "website", "web page", "site", "browser"],
  ["directions", "route", "navigate", "navigation"],
  ["location", "place", "address", "geocode", "map"],
  ["user", "member", "account", "profile"],
  ["contact", "person", "people", "customer", "lead"],
  ["batch", "bulk", "multiple", "many", "several", "mass"],
  ["complete", "close", "finish", "done", "resolve"],
  ["archive", "hide", "shelve"],
  ["team", "group", "organization", "org", "workspace"],
  ["comment", "reply", "annotation", "remark"],
  ["schedule", "calendar", "event", "meeting", "appointment"],
  ["weather", "forecast", "temperature"],
  ["price", "cost", "quote", "rate"],
  ["stock", "ticker", "share", "equity"],
  ["payment", "charge", "invoice", "billing"],
  ["log", "logs", "trace", "audit"],
  ["error", "exception", "failure", "crash"],
  ["deploy", "deployment", "release", "ship"],
  ["container", "docker", "pod"],
  ["video", "clip", "movie", "youtube"],
  ["audio", "sound", "speech", "voice"],
  ["translate", "translation", "language"],
  ["summary", "summarize", "summarise", "digest"],
  ["download", "save", "export", "fetch"],
  ["upload", "import", "attach"],
  ["copy", "duplicate", "clone"],
  ["move", "transfer", "relocate"],
  ["write", "store", "put", "save"],
  ["click", "press", "tap"],
  ["type", "input", "fill", "enter", "keys", "keyboard", "keystroke"],
  ["commit", "changeset", "revision"],
  ["branch", "ref"],
  ["spreadsheet", "sheet", "excel", "csv", "workbook"],
  ["slide", "presentation", "deck"],
  ["chart", "plot", "graph", "visualize", "visualization", "diagram"],
  ["channel", "room", "thread"],
  ["tag", "label", "category"],
  ["key", "secret", "token", "credential", "password"],
  ["auth", "authentication", "authenticate", "authorization", "login", "signin", "oauth"],
  ["app", "application", "program"],
  ["env", "environment", "variable"],
  ["description", "desc", "summary"],
  ["config", "configuration", "setting", "preference", "option"],
  ["info", "information", "detail", "metadata", "describe"],
  ["count", "number", "total", "statistic", "stats", "metric"],
  ["memory", "remember", "recall", "knowledge"],
  ["code", "source", "snippet"],
  ["test", "check", "verify", "validate"],
  ["status", "state", "health"],
  ["time", "date", "timezone", "clock"],
  ["news", "headline", "article"],
  ["paper", "publication", "research"],
  ["merge", "combine", "join", "squash"],
  ["assign", "assignee", "delegate", "owner"],
  ["approve", "accept", "lgtm", "sign off"],
  ["reject", "decline", "deny", "refuse"],
  ["subscribe", "follow", "watch"],
  ["invite", "onboard"],
  ["notification", "alert", "alarm", "reminder"],
  ["dashboard", "overview", "panel"],
  ["performance", "profile", "profiling", "latency", "slow"],
  ["order", "purchase", "transaction", "checkout"],
  ["product", "sku", "catalog", "inventory"],
  ["flight", "airline", "plane"],
  ["hotel", "lodging", "accommodation", "stay"],
  ["booking", "reservation", "reserve", "book"],
  ["transcript", "caption", "subtitle"],
  ["diff", "compare", "difference", "changes"],
  ["rollback", "revert", "undo", "roll back"],
  ["restart", "reboot", "reload"],
  ["scale", "resize", "autoscale"],
  ["scrape", "crawl", "extract", "parse"],
  ["title", "heading", "headline"],
  ["deadline", "due"],
  ["refund", "chargeback"],
  ["subscription", "plan", "tier"],
  ["webhook", "callback", "hook"],
  ["endpoint", "api", "route"],
  ["schema", "structure", "definition"],
  ["hover", "mouseover", "mouse over"],
  ["visit", "navigate", "goto"],
  ["wait", "sleep", "delay", "pause"],
]

/**
 * Words with several senses in software ("call" a function or a person, "record" a row or a video,
 * "log" a file or a note, "open" a file or an issue): they are found as other words' synonyms, but
 * do not bring their own groups' words, which would be the wrong sense as often as the right one.
 */
const AMBIGUOUS = new Set(
  [
    ...["call", "record", "log", "open", "set", "index", "page", "share", "show", "post", "state", "start"],
    ...["navigate", "route", "plan", "book", "stay", "profile", "hook", "extract", "parse", "changes"],
  ].map((word) => terms(word)[0]!),
)

/** A synonym as the query side sees it: the terms to match, and whether all must appear in a row. */
export type Expansion = readonly string[]

const byTerm = new Map<string, Expansion[]>()
const phrases: { readonly terms: readonly string[]; readonly group: number }[] = []
const groups: Expansion[][] = []

for (const [index, group] of GROUPS.entries()) {
  const expansions = group.map((entry) => terms(entry)).filter((entry) => entry.length > 0)
  groups.push(expansions)
  for (const entry of expansions) {
    if (entry.length === 1) {
      const list = byTerm.get(entry[0]!) ?? []
      list.push(...expansions.filter((other) => other !== entry))
      byTerm.set(entry[0]!, list)
    } else phrases.push({ terms: entry, group: index })
  }
}

/**
 * The other words of the groups a query's terms belong to, as single terms (a phrase's terms each
 * stand alone: "pull request" looks for "pull" and "request"). A phrase in the query ("pull request")
 * brings its group too. The query's own terms are left out.
 */
export function expand(queryTerms: readonly string[]): Set<string> {
  const out = new Set<string>()
  const add = (expansions: readonly Expansion[]) => {
    for (const expansion of expansions) for (const term of expansion) out.add(term)
  }
  for (const term of queryTerms) if (!AMBIGUOUS.has(term)) add(byTerm.get(term) ?? [])
  for (const phrase of phrases) {
    if (!containsRun(queryTerms, phrase.terms)) continue
    add(groups[phrase.group]!.filter((entry) => entry !== phrase.terms))
  }
  for (const term of queryTerms) out.delete(term)
  return out
}

function containsRun(haystack: readonly string[], needle: readonly string[]): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer
    return true
  }
  return false
}
