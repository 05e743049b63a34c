import { readFileSync } from "node:fs"

/** Reads a text file that sits beside a module (a tool's description), trimmed. */
export function loadText(moduleUrl: string, name: string): string {
  return readFileSync(new URL(name, moduleUrl), "utf8").trim()
}
