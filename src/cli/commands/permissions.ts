import { parseArgs } from "node:util"
import { createToolbelt } from "../../toolbelt/toolbelt.ts"
import { EXIT, type IO, UsageError, writeJson } from "../io.ts"
import { projectDirectory } from "../project-dir.ts"

export const PERMISSIONS_HELP = `Usage: toolbelt permissions <list|revoke> [options]

The "always" approvals saved for a project. A configured deny in toolbelt.json always wins over them.

Commands:
  list            show the saved approvals (id, permission, pattern, when)
  revoke <id>     remove one saved approval (use "all" to remove every one of this project)

Options:
  --cwd DIR       the project directory (default: the current directory)
  --json          print JSON
  -h, --help      show this help
`

export async function permissionsCommand(argv: string[], io: IO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { cwd: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    strict: true,
    allowPositionals: true,
  })
  const [action, id, ...rest] = positionals
  if (values.help || !action) {
    io.stdout.write(PERMISSIONS_HELP)
    return values.help ? EXIT.ok : EXIT.usage
  }
  if (action !== "list" && action !== "revoke")
    throw new UsageError(`unknown action "${action}": use list or revoke.`)
  if (action === "revoke" && !id)
    throw new UsageError("revoke needs the id of an approval (see toolbelt permissions list).")
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(" ")}`)

  const toolbelt = await createToolbelt({
    directory: projectDirectory(values.cwd, io.cwd),
    sweep: false,
    builtins: false,
  })
  try {
    const approvals = toolbelt.permission.approvals()
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
    const removed = targets.filter((target) => toolbelt.permission.revoke(target))
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
