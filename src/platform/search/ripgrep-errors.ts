// What rg's stderr says when it exits with code 2: a bad pattern, nothing searched, or another failure.

/** ripgrep's regex error, as the problem (`unclosed group`), or undefined when it is another failure. */
export function patternProblem(stderr: string): string | undefined {
  if (/is not allowed in a regex/.test(stderr))
    return 'the literal "\\n" is not allowed: grep matches one line at a time'
  if (!/regex parse error/.test(stderr)) return undefined
  const line = stderr.split("\n").find((text) => text.startsWith("error: "))
  return line ? line.slice("error: ".length).trim() : stderr.trim()
}

/** Whether rg only found nothing to search (not a failure: the result is empty). */
export function noFiles(stderr: string): boolean {
  return /No files were searched/.test(stderr) || stderr.trim() === ""
}

/** The message for any other failure: rg's first line of stderr. */
export function failure(stderr: string): string {
  return `ripgrep failed: ${stderr.trim().split("\n")[0] ?? "unknown error"}`
}
