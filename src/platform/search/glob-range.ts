// Brace ranges: `{a..e}` (one character to another) and `{1..10}`, `{01..10}`, `{1..10..3}` (numbers, as
// bash counts them).

/** What a brace body such as `1..3` stands for, or undefined when it is no range. */
export type BraceRange =
  | { readonly kind: "characters"; readonly low: number; readonly high: number }
  | { readonly kind: "numbers"; readonly count: number; readonly values: (limit: number) => string[] }

const NUMBERS = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/
const CHARACTERS = /^([^\\])\.\.([^\\])$/

/**
 * The range `body` (what is between the braces) spells:
 * - two numbers (and a step): every number from one to the other, as bash lists them, zero-padded to the
 *   wider end when either end is written with a leading zero (`{08..10}` is 08, 09, 10);
 * - two single characters: one character of that span in either order, as picomatch read it (`{a..e}`,
 *   `{e..a}` are `[a-e]`).
 * picomatch read a range of numbers as a character class as well, so `{1..10}` matched only `0` and `1`;
 * numbers are counted here instead.
 */
export function braceRange(body: string): BraceRange | undefined {
  const numbers = NUMBERS.exec(body)
  if (numbers) {
    const [, from = "", to = "", by] = numbers
    const first = Number(from)
    const last = Number(to)
    const step = Math.max(1, Math.abs(Number(by ?? 1)))
    const count = Math.floor(Math.abs(last - first) / step) + 1
    const width = /^-?0\d/.test(from) || /^-?0\d/.test(to) ? Math.max(from.length, to.length) : 0
    const direction = last >= first ? 1 : -1
    const values = (limit: number) => {
      const out: string[] = []
      for (let index = 0; index < Math.min(count, limit); index++)
        out.push(padded(first + index * step * direction, width))
      return out
    }
    if (Number.isSafeInteger(first) && Number.isSafeInteger(last)) return { kind: "numbers", count, values }
    return undefined
  }
  const characters = CHARACTERS.exec(body)
  if (!characters) return undefined
  const a = body.charCodeAt(0)
  const b = body.charCodeAt(body.length - 1)
  return { kind: "characters", low: Math.min(a, b), high: Math.max(a, b) }
}

/** `value` zero-padded to `width` characters, the sign counted (bash's `-05`). */
function padded(value: number, width: number): string {
  const digits = String(Math.abs(value))
  const sign = value < 0 ? "-" : ""
  return sign + digits.padStart(width - sign.length, "0")
}
