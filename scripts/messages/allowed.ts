// What the error-message check (./check.ts) excuses, each with its reason:
// - opencode's messages word for word (agents and tests match them), with the reference that says so;
// - fragments: text another message wraps ("Cannot X: {fragment}."), so it starts lower-case and the
//   wrapper supplies the period and the remedy;
// - another text that already says what to do (a wrapped refusal), so the wrapper need not repeat it;
// - text that is not prose (a kind, an empty string read for its prefix).
// An allowance no message needs any longer fails the check (stale), so this list stays true.
import type { Problem } from "./rules.ts"

export interface Allowance {
  readonly file: string
  /** The site (`ToolFailure`, `fail`, ...); all sites when left out. */
  readonly site?: string
  /** How the message's text (holes as `{expression}`) starts; every message of the file when left out. */
  readonly text?: string
  readonly excuse: readonly Problem[]
  readonly why: string
}

/**
 * Folders another change is editing at the same time: what the check finds there is reported as
 * pending (`node scripts/check-messages.ts` lists it) and does not fail the test. Fix next, then
 * remove the folder from this list.
 */
export const PENDING_FOLDERS: readonly string[] = []

/**
 * Single files whose messages are not yet brought to the convention, reported as pending like
 * PENDING_FOLDERS. Empty: every file issue 32 left here was brought to it. Fix next, then remove the file here.
 */
export const PENDING_FILES: readonly string[] = []

/** Lower-case words that name a parameter or a program, so a message may start with them (`timeout 5 ms is ...`). */
export const CODE_WORDS = ["timeout", "pattern", "path", "ripgrep"]

const ALL: readonly Problem[] = ["lower-case", "no-period", "no-remedy"]
const OPENCODE = "/work/shared/reference/opencode.md"

export const ALLOWED: readonly Allowance[] = [
  // opencode's words.
  {
    file: "src/adapters/lsp/language-server-pool.ts",
    text: "File not found: {file}",
    excuse: ["no-period", "no-remedy"],
    why: `opencode's lsp tool: "A missing file gives \`File not found: <path>\`" (${OPENCODE}, lsp)`,
  },
  {
    file: "src/tools/kit/file-edit/edit-file.ts",
    text: "Path is a directory, not a file: {filepath}",
    excuse: ["no-period", "no-remedy"],
    why: `opencode's edit: "a directory gives \`Path is a directory, not a file: <path>\`" (${OPENCODE}, edit)`,
  },

  {
    file: "src/tools/glob/glob.ts",
    text: "Directory not found: {target}",
    excuse: ["no-period", "no-remedy"],
    why: "opencode's `Directory not found: <path>` (ARCHITECTURE.md, Error messages; opencode's glob and list)",
  },
  {
    file: "src/tools/list/list.ts",
    text: "Directory not found: {dirpath}",
    excuse: ["no-period", "no-remedy"],
    why: "opencode's `Directory not found: <path>` (ARCHITECTURE.md, Error messages; opencode's list)",
  },
  {
    file: "src/tools/lsp/lsp.ts",
    text: "File not found: {filepath}",
    excuse: ["no-period", "no-remedy"],
    why: `opencode's lsp tool: "A missing file gives \`File not found: <path>\`" (${OPENCODE}, lsp)`,
  },
  {
    file: "src/tools/read/read.ts",
    text: "Cannot read binary file: {filepath}",
    excuse: ["no-period", "no-remedy"],
    why: `opencode's read: "Binary files give the error \`Cannot read binary file: <path>\`" (${OPENCODE}, read)`,
  },
  {
    file: "src/tools/read/read.ts",
    text: "Offset {offset} is out of range for this file (",
    excuse: ["no-period", "no-remedy"],
    why: `opencode's read: "\`Offset N is out of range for this file (M lines)\`" (${OPENCODE}, read)`,
  },
  {
    file: "src/tools/read/read.ts",
    text: "Offset {offset} is out of range for this directory (",
    excuse: ["no-period", "no-remedy"],
    why: "opencode's read gives a directory's offset error in the same words, `(N entries)` for the lines",
  },
  {
    file: "src/adapters/mcp-client/mcp-tool.ts",
    text: 'MCP server "{server}" could not run {name}: ',
    excuse: ["no-remedy"],
    why: "the MCP server's own error text follows: what to do is the server's to say",
  },

  {
    file: "src/surfaces/cli/commands/call.ts",
    text: '"{',
    excuse: ["no-remedy"],
    why: "the reason a tool is not offered follows, as `toolbelt tools` lists it (what would offer it: a provider, trust)",
  },
  {
    file: "src/surfaces/cli/commands/call.ts",
    text: 'Unknown tool "{name}": {untrusted}',
    excuse: ["no-remedy"],
    why: "`untrusted` names the tool file and how to trust the project (surfaces/cli/trust-text.ts)",
  },

  // Fragments another message wraps.
  {
    file: "src/adapters/mcp-client/config.ts",
    site: "fail",
    excuse: ["lower-case"],
    why: 'wrapped as `Invalid config for MCP server "<name>": <problem>` (McpConfigError, same file)',
  },
  {
    file: "src/platform/fs/errors.ts",
    site: "fail",
    excuse: ["lower-case"],
    why: "why a write failed, wrapped as `Cannot write <path>: <reason>` (describeWriteError, same file)",
  },
  {
    file: "src/runtime/question/service.ts",
    site: "QuestionAnswerError",
    excuse: ALL,
    why: "the problem QuestionAnswerError wraps: `The answers to question <id> do not fit it: <problem>. The question is still pending.`",
  },
  {
    file: "src/platform/text/caller-regex.ts",
    site: "CallerRegexError",
    excuse: ALL,
    why: "why a caller's regex cannot be used, wrapped as `... cannot be used: <why>.` by its callers (bash's ready_pattern, grep)",
  },
  {
    file: "src/platform/search/regex.ts",
    site: "SearchPatternError",
    excuse: ALL,
    why: "the problem SearchPatternError wraps with the pattern (platform/search/backend.ts)",
  },
  {
    file: "src/runtime/skills/skill-file.ts",
    excuse: ["lower-case"],
    why: "why a SKILL.md does not load, shown after its path (`<file>: <why>`) by the skill catalog and `toolbelt skills`",
  },
  {
    file: "src/runtime/permission/agents/agent-file.ts",
    excuse: ["lower-case"],
    why: "why an agent file does not load, shown after its path like a skill's",
  },
  {
    file: "src/runtime/config/frontmatter.ts",
    excuse: ["lower-case"],
    why: "a frontmatter problem, shown after the file's path by skills and agents",
  },
  {
    file: "src/tools/apply_patch/parse.ts",
    site: "fail",
    excuse: ["lower-case"],
    why: "wrapped as `apply_patch could not parse the patch: <problem>` (apply_patch/execute.ts)",
  },
  {
    file: "src/tools/apply_patch/execute.ts",
    site: "Error",
    text: "it is a directory, not a file",
    excuse: ALL,
    why: "a reason caught and wrapped into the verification failure naming the file",
  },
  {
    file: "src/tools/skill/skill.ts",
    site: "Error",
    text: "it is no longer listed",
    excuse: ALL,
    why: "a reason caught and wrapped into the skill tool's `Cannot load the skill ...` failure",
  },
  {
    file: "src/tools/kit/search/settings.ts",
    site: "Error",
    text: "not http",
    excuse: ALL,
    why: 'never shown: caught at once and answered with `"<name>.url" is not an http(s) URL`',
  },

  // Another text that already says what to do, wrapped with what this message adds.
  {
    file: "src/tools/apply_patch/execute.ts",
    text: "{stale}",
    excuse: ["no-remedy"],
    why: "the ledger's staleness text (tools/kit/file-edit/ledger.ts), which ends with what to do: read the file again",
  },
  {
    file: "src/tools/apply_patch/execute.ts",
    text: "{error.message}",
    excuse: ["no-remedy"],
    why: "assertLandsOn's refusal (platform/fs/atomic-write.ts), which ends with what to do: check the path and retry",
  },
  {
    file: "src/platform/fs/errors.ts",
    text: "Cannot write {path}: {reason}",
    excuse: ["no-remedy"],
    why: "describeWriteError's reasons and writeRefusal's (platform/fs/atomic-write.ts) each end with what to do (free space, fix the permissions, check the path); only an unknown system error gives its own text",
  },
  {
    file: "src/tools/kit/file-edit/edit-file.ts",
    text: "Cannot edit {filepath}: {existing.reason}",
    excuse: ["no-remedy"],
    why: "readExisting's refusal (tools/kit/file-edit/target.ts), which ends with what to do: replace it whole, convert it, give a regular file",
  },
  {
    file: "src/runtime/settle/messages.ts",
    text: "{shown}: {repeated}, and {reason}",
    excuse: ["no-remedy"],
    why: "the loop guard's reason (same file), which ends with what to do: the doom_loop setting to change, or try something else",
  },
  {
    file: "src/tools/kit/search/run-search.ts",
    text: "Search is not available: {settings.reason}.",
    excuse: ["no-remedy"],
    why: "the search settings' reason (tools/kit/search/settings.ts), which says what to set in toolbelt.json or the environment, as `toolbelt tools` shows it",
  },

  // Not prose.
  {
    file: "src/adapters/lsp/language-server-pool.ts",
    site: "ServerFailure",
    text: "crash",
    excuse: ALL,
    why: "the failure's kind (its second argument), not its message",
  },
  {
    file: "src/platform/store/journal.ts",
    site: "IllegalTransitionError",
    text: "running",
    excuse: ALL,
    why: "the state the call would move to (its second argument), not its message",
  },
  {
    file: "src/compose/child-calls.ts",
    site: "QuestionUnansweredError",
    text: "",
    excuse: ALL,
    why: "built with an empty reason only to read how every such message begins",
  },
  {
    file: "src/runtime/permission/errors.ts",
    site: "PermissionUnansweredError",
    text: "",
    excuse: ALL,
    why: "built with an empty reason only to read how every such message begins",
  },
]
