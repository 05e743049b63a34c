// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes being removed.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b[()][0-9A-Za-z]/g

/** Lines that ask a question whatever follows them (even a newline: some programs end prompts with one). */
const STRONG: readonly RegExp[] = [
  /[[(]\s*y(?:es)?\s*\/\s*n(?:o)?\s*[\])]/i, // [y/N] (Y/n) (yes/no) [yes/no]
  /\(yes\/no(?:\/\[fingerprint\])?\)/i,
  /\?\s*[[(][^\])]{0,20}[\])]\s*$/, // Ok to proceed? (y)  /  Name? [default]
  /\bpass(?:word|phrase)\b[^\n]*:\s*$/i, // Password: / Enter passphrase for key:
  /\bpress (?:any key|enter|return|a key)\b/i,
  /\b(?:continue|proceed|overwrite|replace|are you sure|do you want)\b[^\n]*\?\s*$/i,
  /\b(?:username|login|token|otp|verification code)\b[^\n]*:\s*$/i,
]

/** A line left open (no newline) that ends like a question or an input field: `Name: `, `Choice? `, `> `. */
const OPEN = /[?:>]\s*$/

/**
 * Whether the end of a command's output looks like a prompt waiting for an answer; returns the prompt
 * line (without colour codes), or undefined.
 *
 * Only the last line counts. A line the program left open (no trailing newline) qualifies when it ends
 * with `?`, `:` or `>`; a finished line only when it reads as a question outright (`[y/N]`, `Password:`,
 * `Press any key`, `Continue?`). The caller adds the other half of the evidence: silence for a while.
 */
export function detectPrompt(tail: string): string | undefined {
  const text = tail.replace(ANSI, "").replace(/\r(?!\n)/g, "\n")
  const open = !text.endsWith("\n")
  const trimmed = text.replace(/\s+$/, "")
  if (trimmed === "") return undefined
  const line = trimmed.slice(trimmed.lastIndexOf("\n") + 1)
  const shown = open ? text.slice(text.lastIndexOf("\n") + 1) : line
  if (STRONG.some((pattern) => pattern.test(line))) return shown
  if (open && OPEN.test(shown)) return shown
  return undefined
}

/** What the model is told when a command was stopped at a prompt: why, and how to avoid it. */
export function promptAdvice(prompt: string, silentMs: number): string {
  const seconds = Math.round(silentMs / 100) / 10
  return (
    `The command was stopped because it appears to be waiting for input: no output for ${seconds} s after ` +
    `the prompt ${JSON.stringify(prompt.trim())}. Commands run with stdin closed, so nobody can answer it. ` +
    "Run it non-interactively instead: pass a flag such as --yes, -y, --force, --no-input or " +
    "--non-interactive; pipe the answers in (`yes | cmd`, `printf 'y\\n' | cmd`); read input from a file or " +
    "`< /dev/null`; or set the tool's own variables (DEBIAN_FRONTEND=noninteractive, npm_config_yes=true). " +
    "For passwords and tokens, use a credential helper, an environment variable or a key file; never a prompt."
  )
}
