// A tool definition as the fields the ranking weighs: its own name (without the server's prefix),
// the first sentence of its description, the rest of it, its parameters' names and descriptions,
// and its server. Long texts are cut to a bounded number of terms, so a 20 KB description or a
// schema with hundreds of properties costs what a long ordinary one does and cannot drown the rest.
import { sanitize } from "./sanitize.ts"
import { nameTerms, terms } from "./terms.ts"
import type { SearchDoc } from "./types.ts"

export const FIELDS = ["name", "lead", "body", "params", "server"] as const
export type Field = (typeof FIELDS)[number]

/** The terms of each field of one tool, in order. */
export type Fields = Readonly<Record<Field, readonly string[]>>

/** At most this many terms per field (the first ones: what a description leads with matters most). */
const MAX_TERMS: Readonly<Record<Field, number>> = { name: 32, lead: 80, body: 300, params: 300, server: 120 }
/** At most this many characters of a text are read (past the terms kept), so a huge one costs little. */
const MAX_CHARS = 4_000
const MAX_PROPERTIES = 120
const MAX_DEPTH = 3

/** The fields of each tool; a server's description, the same for all its tools, is read once. */
export function readFields(docs: readonly SearchDoc[]): Fields[] {
  const servers = new Map<string, string[]>()
  return docs.map((doc) => fieldsOf(doc, servers))
}

/** The fields of one tool (`servers` remembers each server's terms across calls). */
export function fieldsOf(doc: SearchDoc, servers = new Map<string, string[]>()): Fields {
  const { lead, body } = splitLead(doc.description.slice(0, MAX_CHARS))
  let server: string[] = []
  if (doc.server) {
    const key = `${doc.server.name}\0${doc.server.description ?? ""}`
    server = servers.get(key) ?? []
    if (!servers.has(key)) {
      server = cap(
        terms(`${doc.server.name} ${(doc.server.description ?? "").slice(0, MAX_CHARS)}`),
        "server",
      )
      servers.set(key, server)
    }
  }
  return {
    name: cap(nameTerms(ownName(doc)), "name"),
    lead: cap(terms(lead), "lead"),
    body: cap(terms(body), "body"),
    params: cap(terms(paramText(doc.inputSchema)), "params"),
    server,
  }
}

/** The tool's name without its server's prefix (`github_create_issue` → `create_issue`). */
export function ownName(doc: SearchDoc): string {
  if (!doc.server) return doc.name
  const prefix = `${sanitize(doc.server.name)}_`
  for (const candidate of [prefix, `mcp_${prefix}`])
    if (doc.name.startsWith(candidate) && doc.name.length > candidate.length)
      return doc.name.slice(candidate.length)
  return doc.name
}

/**
 * The first sentence, and the rest. A sentence ends at . ! ? (then a space), at 。！？ or at a blank
 * line, once it has a few words: "1." or "e.g." or a heading ("🎯 Purpose: 1.") does not end it.
 */
export function splitLead(text: string): { lead: string; body: string } {
  const trimmed = text.trim()
  for (const end of trimmed.matchAll(/[.!?](?=\s)|[。！？]|\n\s*\n/g)) {
    const at = end.index + end[0].length
    const lead = trimmed.slice(0, at)
    if (end[0] === "." && /(?:^|[\s(])(?:\d+|\p{L}|e\.g|i\.e|etc|vs)\.$/iu.test(lead)) continue
    if (/[.!?]$/.test(end[0]) && (lead.match(/[\p{L}\p{N}]+/gu)?.length ?? 0) < 3) continue
    return { lead, body: trimmed.slice(at) }
  }
  return { lead: trimmed, body: "" }
}

/** Parameter names and descriptions, nested objects and arrays' items included, to a bound. */
function paramText(schema: Record<string, unknown>): string {
  const parts: string[] = []
  let seen = 0
  const length = 0
  const walk = (node: unknown, depth: number) => {
    if (!isObject(node) || depth > MAX_DEPTH || length > MAX_CHARS) return
    const properties = node.properties
    if (isObject(properties)) {
      for (const [key, value] of Object.entries(properties)) {
        if (++seen > MAX_PROPERTIES) return
        parts.push(key)
        if (isObject(value) && typeof value.description === "string")
          parts.push(value.description.slice(0, 400))
        walk(value, depth + 1)
      }
    }
    if (isObject(node.items)) walk(node.items, depth + 1)
    for (const key of ["anyOf", "oneOf", "allOf"])
      if (Array.isArray(node[key])) for (const branch of node[key] as unknown[]) walk(branch, depth + 1)
  }
  walk(schema, 0)
  return parts.join(" \n ")
}

function cap(list: string[], field: Field): string[] {
  return list.length > MAX_TERMS[field] ? list.slice(0, MAX_TERMS[field]) : list
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}
