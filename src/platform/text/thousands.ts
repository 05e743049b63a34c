// Whole numbers with thousands separators, as toLocaleString("en-US") writes them (1,234,567), without
// it: the first toLocaleString of a process sets up ICU's number formatting, about a quarter of a bare
// Node start, which a command that prints one count (`toolbelt tools`) should not pay.

/** `count` with a comma between each group of three digits; other than whole numbers, as en-US writes them. */
export function thousands(count: number): string {
  if (!Number.isSafeInteger(count)) return count.toLocaleString("en-US")
  const digits = String(Math.abs(count))
  const grouped = digits.replace(/\B(?=(\d{3})+$)/g, ",")
  return count < 0 ? `-${grouped}` : grouped
}
