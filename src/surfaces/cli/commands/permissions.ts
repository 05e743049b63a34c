import { internals } from "../../../compose/internals.ts"
import { createToolbelt } from "../../../compose/toolbelt.ts"
import { DEFAULT_AGENT } from "../../../runtime/permission/agents/agent.ts"
import { type Command, parseCommandLine } from "../command-line.ts"
import { EXIT, type IO, UsageError, writeJson } from "../io.ts"
import { projectDirectory } from "../project-dir.ts"
import { storeHelp, storeOption } from "../store-flag.ts"
import { sayTrust } from "../trust-gate.ts"
import { formatPolicyReport, policyReport } from "./permissions-show.ts"

export const PERMISSIONS_HELP = `Usage: toolbelt permissions [show|list|revoke] [options]

A project's permission policy, where each rule came from, and the "always" approvals saved for it.
A configured deny in toolbelt.json always wins over a saved approval.

Commands:
  show            (the default) the config files read, the user's and the project's, and how each
                  counts: applied, or tighten only (an untrusted project's; opencode's opencode.json,
                  .opencode/config.toml and ~/.config/opencode/ unless your toolbelt.json sets
                  "permission_sources": ["opencode"]); every rule that can decide each permission with
                  the file and key it came from; what else holds over every call (the project's rules,
                  another agent's config); the rules taken (denies, asks) and left (allows) and why;
                  and the directories outside the project that are allowed without asking
  list            show the saved approvals (id, permission, pattern, when)
  revoke <id>     remove one saved approval (use "all" to remove every one of this project)

Options:
  --cwd DIR       the project directory (default: the current directory)
  --agent NAME    the agent whose rules to show (default: build)
  --json          print JSON
  --trust         show the policy as it is when the project is trusted, for this run (TOOLBELT_TRUST=1
                  does the same); said on stderr
${storeHelp(18)}  -h, --help      show this help
`

/** The command line `permissions` takes. */
const PERMISSIONS_LINE = {
  help: PERMISSIONS_HELP,
  shared: ["cwd", "agent", "json", "trust", "store"],
} as const

export const command: Command = { run: permissionsCommand, help: PERMISSIONS_HELP }

export async function permissionsCommand(argv: string[], io: IO): Promise<number> {
  const line = parseCommandLine({ argv, io, ...PERMISSIONS_LINE })
  if (!line) return EXIT.ok
  const { values, positionals } = line
  const [action = "show", id, ...rest] = positionals
  if (action !== "show" && action !== "list" && action !== "revoke")
    throw new UsageError(`Unknown action "${action}": use show, list or revoke.`)
  if (values.agent !== undefined && action !== "show")
    throw new UsageError("--agent goes with show: approvals are saved per project, not per agent.")
  if (action === "revoke" && !id)
    throw new UsageError("Revoke needs the id of an approval: toolbelt permissions list shows them.")
  if (rest.length)
    throw new UsageError(`Unexpected arguments: ${rest.join(" ")}. Give one action and at most one id.`)

  const store = storeOption(values.store)
  const toolbelt = await createToolbelt({
    directory: projectDirectory(values.cwd, io.cwd),
    sweep: false,
    builtins: false,
    customTools: false,
    mcp: false,
    env: io.env,
    ...store,
    ...(values.trust ? { trust: true } : {}),
  })
  try {
    sayTrust(toolbelt.trust, io, { command: "permissions" })
    const approvals = internals(toolbelt).permission.approvals()
    if (action === "show") {
      const report = policyReport({
        directory: toolbelt.directory,
        agent: values.agent ?? DEFAULT_AGENT,
        policy: internals(toolbelt).policy,
        env: io.env,
        approvals: approvals.length,
      })
      if (values.json) writeJson(io.stdout, report)
      else io.stdout.write(formatPolicyReport(report))
      return EXIT.ok
    }
    if (action === "list") {
      if (values.json) writeJson(io.stdout, approvals)
      else if (!approvals.length) io.stdout.write(`No saved approvals for ${toolbelt.directory}.\n`)
      else {
        for (const approval of approvals) {
          io.stdout.write(
            `${approval.id}  ${approval.permission} ${approval.pattern}  (${new Date(approval.time).toISOString()})\n`,
          )
        }
      }
      return EXIT.ok
    }
    const targets = id === "all" ? approvals.map((approval) => approval.id) : [id!]
    const removed = targets.filter((target) => internals(toolbelt).permission.revoke(target))
    if (values.json) writeJson(io.stdout, { revoked: removed })
    if (id !== "all" && removed.length === 0) {
      io.stderr.write(`toolbelt permissions: no saved approval ${id} for ${toolbelt.directory}.\n`)
      return EXIT.failed
    }
    if (!values.json) io.stdout.write(`Revoked ${removed.length} approval(s).\n`)
    return EXIT.ok
  } finally {
    await toolbelt.close()
  }
}
