// The build's code caches (bin/toolbelt.js runs the build through vm.Script with a V8 code cache per
// chunk and command). A long-lived command writes them once its event loop is idle; one that knows when
// its start-up is done writes them then: `serve` before it listens (no call meets the pause their
// making costs), the stdio MCP server before its first answer (a client may kill it right after).

/** Where bin/toolbelt.js puts its save function; absent when the sources run (no build, no cache). */
const SAVE = Symbol.for("toolbelt.saveCodeCache")

/** Writes the code caches of what this process compiled without one, if it runs from the build. */
export function saveCodeCache(): void {
  const save = (globalThis as Record<symbol, unknown>)[SAVE]
  if (typeof save === "function") save()
}
