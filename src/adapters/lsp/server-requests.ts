// What a language server asks of its client, answered: its settings (the configured `initialization`,
// by section), its workspace folders, and polite no-ops for the rest (capability registrations, progress,
// messages to show). Edits it wants applied are refused: toolbelt's edits go through its own tools.
import { basename } from "node:path"
import { pathToFileURL } from "node:url"
import type { MessageConnection } from "vscode-jsonrpc/node"

export function answerServerRequests(
  connection: MessageConnection,
  { root, initialization }: { root: string; initialization: Readonly<Record<string, unknown>> | undefined },
): void {
  const settings = initialization ?? {}
  connection.onRequest((method, params) => {
    switch (method) {
      case "workspace/configuration": {
        const items = (params as { items?: { section?: string }[] } | undefined)?.items ?? []
        return items.map((item) => section(settings, item.section))
      }
      case "workspace/workspaceFolders":
        return [{ uri: pathToFileURL(root).href, name: basename(root) }]
      case "workspace/applyEdit":
        return { applied: false, failureReason: "toolbelt does not apply edits from language servers" }
      default:
        // registerCapability, workDoneProgress/create, showMessageRequest, refresh requests.
        return null
    }
  })
}

/** The value under a dotted `section` of the settings (`python.analysis`), or all of them; null when absent. */
function section(settings: Readonly<Record<string, unknown>>, name: string | undefined): unknown {
  if (!name) return settings
  let value: unknown = settings
  for (const key of name.split(".")) {
    if (typeof value !== "object" || value === null) return null
    value = (value as Record<string, unknown>)[key]
  }
  return value ?? null
}
