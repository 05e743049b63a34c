// `--store URL`: the PostgreSQL database a command keeps its records in, on every command that opens
// the store (`call`, `run`, `tools`, `mcp`, `serve`, `permissions`), and the lines its help shows.
import { checkStoreUrl } from "../../compose/open-project.ts"
import { UsageError } from "./io.ts"

/**
 * The `store` option of `createToolbelt` from `--store`. Checked here, so that a value that is not a
 * PostgreSQL URL is a usage error naming the flag (its password never shown) before anything opens.
 * A file path is refused, not taken as a SQLite file: a mistyped URL would quietly become a new file.
 * Without the flag, `createToolbelt` asks `TOOLBELT_STORE`, then config `"store"`.
 */
export function storeOption(flag: string | undefined): { store?: string } {
  if (flag === undefined) return {}
  try {
    return { store: checkStoreUrl(flag, "--store") }
  } catch (error) {
    throw new UsageError((error as Error).message, { help: false })
  }
}

/** The help of `--store`, its text starting at `column` (where the command's other options' start). */
export function storeHelp(column: number): string {
  const flag = "  --store URL"
  const lines = [
    "the store: a PostgreSQL URL, postgres://user:password@host:port/db (TLS by",
    "sslmode=...), one database that many toolbelts share; its password is never shown.",
    'Default: $TOOLBELT_STORE, else "store" in your toolbelt.json (a project\'s only',
    "when trusted), else the SQLite file in the data dir. A file path is refused (a",
    "mistyped URL would quietly become a new file)",
  ]
  const pad = " ".repeat(column)
  return `${flag.padEnd(column)}${lines[0]}\n${lines
    .slice(1)
    .map((line) => `${pad}${line}\n`)
    .join("")}`
}
