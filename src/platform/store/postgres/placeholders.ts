/**
 * The store's SQL is written once with SQLite's positional parameters (`?`, and `?N` where one value is
 * used twice); PostgreSQL numbers them (`$1`). This rewrites one into the other, leaving string
 * literals, quoted identifiers and comments alone. Results are cached: the repositories prepare a
 * fixed set of statements.
 */

const cache = new Map<string, string>()

/** `?` → `$1`, `$2`, … in order; `?N` → `$N`. */
export function toPostgresPlaceholders(sql: string): string {
  const cached = cache.get(sql)
  if (cached !== undefined) return cached
  let out = ""
  let next = 0
  let i = 0
  while (i < sql.length) {
    const char = sql[i]!
    if (char === "'" || char === '"') {
      const end = closing(sql, i, char)
      out += sql.slice(i, end)
      i = end
    } else if (char === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i)
      const stop = end === -1 ? sql.length : end
      out += sql.slice(i, stop)
      i = stop
    } else if (char === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2)
      const stop = end === -1 ? sql.length : end + 2
      out += sql.slice(i, stop)
      i = stop
    } else if (char === "?") {
      let j = i + 1
      while (j < sql.length && sql[j]! >= "0" && sql[j]! <= "9") j++
      out += j > i + 1 ? `$${sql.slice(i + 1, j)}` : `$${++next}`
      i = j
    } else {
      out += char
      i++
    }
  }
  if (cache.size < 1000) cache.set(sql, out)
  return out
}

/** The index just past the literal or identifier opened at `start` (a doubled quote escapes itself). */
function closing(sql: string, start: number, quote: string): number {
  let i = start + 1
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2
      else return i + 1
    } else i++
  }
  return sql.length
}
