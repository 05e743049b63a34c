// The error-message check: every message in src/ (./scan.ts) against the convention (./rules.ts),
// less what ./allowed.ts excuses. Messages in folders another change is editing are reported apart,
// as pending, and do not fail the check.
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { ALLOWED, type Allowance, CODE_WORDS, PENDING_FILES, PENDING_FOLDERS } from "./allowed.ts"
import { type Problem, problems as problemsOf } from "./rules.ts"
import { type Message, scanMessages } from "./scan.ts"

export interface Finding extends Message {
  readonly problems: readonly Problem[]
}

export interface Report {
  /** Messages that break the convention: the check fails on any. */
  readonly findings: Finding[]
  /** Messages that break it in PENDING_FOLDERS or PENDING_FILES: reported, not failed. */
  readonly pending: Finding[]
  /** Allowances no message needs any longer: remove them. */
  readonly stale: Allowance[]
}

/** Checks the messages under `root`/src. */
export function checkMessages(root: string): Report {
  const tools = readdirSync(join(root, "src", "tools"), { withFileTypes: true })
  const names = tools
    .filter((entry) => entry.isDirectory() && !["kit", "invalid"].includes(entry.name))
    .map((entry) => entry.name)
  return judge(scanMessages(root), new Set(["toolbelt", ...names, ...CODE_WORDS]))
}

/** Checks the given messages (the pure part, for tests); `codeWords` as for `problems`. */
export function judge(messages: readonly Message[], codeWords: ReadonlySet<string> = new Set()): Report {
  const used = new Set<Allowance>()
  const findings: Finding[] = []
  const pending: Finding[] = []
  for (const message of messages) {
    const found = problemsOf(message.site, message.text, codeWords)
    const excused = new Set<Problem>()
    for (const allowance of ALLOWED) {
      if (!covers(allowance, message)) continue
      const excuses = found.filter((problem) => allowance.excuse.includes(problem))
      if (excuses.length > 0) used.add(allowance)
      for (const problem of excuses) excused.add(problem)
    }
    const left = found.filter((problem) => !excused.has(problem))
    if (left.length === 0) continue
    const finding = { ...message, problems: left }
    const later = PENDING_FILES.includes(message.file)
    if (later || PENDING_FOLDERS.some((folder) => message.file.startsWith(folder))) pending.push(finding)
    else findings.push(finding)
  }
  return { findings, pending, stale: ALLOWED.filter((allowance) => !used.has(allowance)) }
}

function covers(allowance: Allowance, message: Message): boolean {
  if (allowance.file !== message.file) return false
  if (allowance.site !== undefined && allowance.site !== message.site) return false
  return allowance.text === undefined || message.text.startsWith(allowance.text)
}

/** One line per finding: `file:line [problems] text`. */
export function describe(finding: Finding): string {
  const text = finding.text.length > 160 ? `${finding.text.slice(0, 157)}...` : finding.text
  return `${finding.file}:${finding.line} [${finding.problems.join(", ")}] ${JSON.stringify(text)}`
}
