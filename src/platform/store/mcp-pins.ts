import { fromRow } from "./rows.ts"
import type { Database, Statement } from "./sqlite.ts"

/** An MCP tool's definition as it was when first approved in a project (drift pinning). */
export interface McpPin {
  readonly projectID: string
  /** The server's name in the `mcp` config. */
  readonly server: string
  /** The tool's name on the server (not the registered name). */
  readonly tool: string
  /** sha256 (hex) of the canonical JSON of `definition`. */
  readonly fingerprint: string
  /** What was fingerprinted: name, description, input schema, annotations. */
  readonly definition: unknown
  /** Epoch ms of the approval. */
  readonly time: number
}

/** Which pin: the project, the server's name in its config, the tool's name on the server. */
export type PinKey = Pick<McpPin, "projectID" | "server" | "tool">

interface PinRow {
  project_id: string
  server: string
  tool: string
  fingerprint: string
  definition: string
  time: number
}

/** The pinned MCP tool definitions of each project. */
export class McpPins {
  readonly #get: Statement
  readonly #list: Statement
  readonly #listServer: Statement
  readonly #upsert: Statement
  readonly #removeTool: Statement
  readonly #removeServer: Statement

  constructor(db: Database) {
    this.#get = db.prepare("SELECT * FROM mcp_pin WHERE project_id = ? AND server = ? AND tool = ?")
    this.#list = db.prepare("SELECT * FROM mcp_pin WHERE project_id = ? ORDER BY server, tool")
    this.#listServer = db.prepare("SELECT * FROM mcp_pin WHERE project_id = ? AND server = ? ORDER BY tool")
    this.#upsert = db.prepare(
      `INSERT INTO mcp_pin (project_id, server, tool, fingerprint, definition, time) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (project_id, server, tool)
       DO UPDATE SET fingerprint = excluded.fingerprint, definition = excluded.definition, time = excluded.time`,
    )
    this.#removeTool = db.prepare("DELETE FROM mcp_pin WHERE project_id = ? AND server = ? AND tool = ?")
    this.#removeServer = db.prepare("DELETE FROM mcp_pin WHERE project_id = ? AND server = ?")
  }

  get(key: PinKey): McpPin | undefined {
    const row = this.#get.get<PinRow>(key.projectID, key.server, key.tool)
    return row ? toPin(row) : undefined
  }

  /** A project's pins (of one server when given), by server and tool. */
  list(projectID: string, server?: string): McpPin[] {
    const rows =
      server === undefined
        ? this.#list.all<PinRow>(projectID)
        : this.#listServer.all<PinRow>(projectID, server)
    return rows.map(toPin)
  }

  /** Pins a definition, replacing the tool's previous pin. */
  pin(pin: Omit<McpPin, "time"> & { readonly time?: number }): McpPin {
    const time = pin.time ?? Date.now()
    this.#upsert.run(
      pin.projectID,
      pin.server,
      pin.tool,
      pin.fingerprint,
      JSON.stringify(pin.definition ?? null),
      time,
    )
    return { ...pin, time }
  }

  /** Forgets one tool's pin, or every pin of a server; returns how many were removed. */
  remove(key: Omit<PinKey, "tool"> & { readonly tool?: string }): number {
    const { projectID, server, tool } = key
    const result =
      tool === undefined
        ? this.#removeServer.run(projectID, server)
        : this.#removeTool.run(projectID, server, tool)
    return result.changes
  }
}

function toPin(row: PinRow): McpPin {
  return { ...fromRow(row), definition: JSON.parse(row.definition) as unknown }
}
