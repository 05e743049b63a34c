// The shapes the API takes and gives, as Zod schemas: requests are checked with them, and the OpenAPI
// document is written from them.
import { z } from "zod"

/** Ids toolbelt makes (`ses_…`, `per_…`) and ids clients choose: printable, bounded. */
const id = (what: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w.:-]+$/, `${what} ids are letters, digits, "_", "-", "." or ":"`)

export const SessionID = id("session").describe("A session id, e.g. ses_0a1b2c3d4e5fAbCdEfGhIjKlMn.")
export const ToolName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "a tool name is a letter, then up to 63 letters, digits, _ or -")
  .describe("The tool's name, as `GET /api/tools` lists it.")

export const ErrorBody = z.object({
  error: z.string().describe("What went wrong and what to do."),
  issues: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .optional()
    .describe("Each problem with the input, where it is (`body.tool`, `query.limit`)."),
})

const Time = z.number().describe("Epoch milliseconds.")
const Metadata = z.record(z.string(), z.unknown())
const Input = z.record(z.string(), z.unknown())

export const FilePart = z.object({
  type: z.literal("file"),
  mime: z.string(),
  url: z.string(),
  filename: z.string().optional(),
})

export const ToolState = z.discriminatedUnion("status", [
  z.object({ status: z.literal("pending"), input: Input, raw: z.string() }),
  z.object({
    status: z.literal("running"),
    input: Input,
    title: z.string().optional(),
    metadata: Metadata.optional().describe("Live progress: the shell's `output` so far, …"),
    time: z.object({ start: Time }),
  }),
  z.object({
    status: z.literal("completed"),
    input: Input,
    output: z.string(),
    title: z.string(),
    metadata: Metadata.describe("What the tool reports: `diff` of a file change, `exit` of a command, …"),
    time: z.object({ start: Time, end: Time }),
    attachments: z.array(FilePart).optional(),
  }),
  z.object({
    status: z.literal("error"),
    input: Input,
    error: z.string(),
    metadata: Metadata.optional().describe("`interrupted: true` when the call was cut short."),
    time: z.object({ start: Time, end: Time }),
  }),
])

export const ToolPart = z
  .object({
    id: z.string(),
    sessionID: z.string(),
    messageID: z.string(),
    type: z.literal("tool"),
    callID: z.string(),
    tool: z.string(),
    state: ToolState,
  })
  .describe("A tool call, as it is stored and streamed; its state only moves forward.")

export const Session = z.object({
  id: z.string(),
  projectID: z.string().describe("The project directory."),
  host: z
    .string()
    .optional()
    .describe("The host name of the toolbelt that created it (absent when it did not say)."),
  parentID: z.string().optional().describe("The session that started this one as a subagent."),
  agent: z.string(),
  title: z.string(),
  time: z.object({ created: Time, updated: Time }),
})

export const Todo = z.object({
  id: z.string(),
  content: z.string(),
  status: z.enum(["pending", "in_progress", "completed", "cancelled"]),
  priority: z.enum(["high", "medium", "low"]),
})

export const PermissionRequest = z
  .object({
    id: z.string().describe("per_…"),
    sessionID: z.string(),
    agent: z.string(),
    permission: z.string().describe("What is asked: `bash`, `edit`, `external_directory`, …"),
    patterns: z.array(z.string()).describe("What this call needs: the command, the paths, …"),
    always: z.array(z.string()).describe('Exactly what an "always" reply saves for the project.'),
    metadata: Metadata.describe("What the tool attached: the diff of an edit, the command, …"),
    tool: z.object({ messageID: z.string(), callID: z.string(), name: z.string().optional() }).optional(),
    digest: z.string().describe("sha256 of the tool and its input."),
    time: Time,
  })
  .describe("A permission ask waiting for a reply.")

export const SavedApproval = z.object({
  id: z.string().describe("apr_…"),
  projectID: z.string(),
  permission: z.string(),
  pattern: z.string(),
  time: Time,
})

export const JournalEntry = z.object({
  seq: z.number().describe("The entry's place in the store's journal."),
  sessionID: z.string(),
  callID: z.string().optional(),
  kind: z.enum(["requested", "asked", "decided", "started", "progress", "finished", "interrupted"]),
  data: z.unknown(),
  time: Time,
})

export const ToolInfo = z.object({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()).describe("JSON Schema of the input."),
  annotations: z.record(z.string(), z.unknown()),
  source: z.string().describe("`builtin`, a plugin, a tool file, or an MCP server."),
  tokens: z
    .number()
    .int()
    .describe('The definition\'s size in o200k_base tokens: JSON `{"name","description","input_schema"}`.'),
  deferred: z
    .boolean()
    .describe(
      "Left out of what clients get up front: `tool_search` finds it (and loads it into the session); it stays callable by name.",
    ),
})

export const ToolDeferral = z.object({
  mode: z.enum(["auto", "on", "off"]).describe('`"tool_search"` in toolbelt.json.'),
  budget: z
    .number()
    .int()
    .describe(
      'Tokens the definitions offered up front may take before `auto` defers (`"tool_search_budget"`).',
    ),
  totalTokens: z
    .number()
    .int()
    .describe("Tokens of every definition that would be offered without deferral (tool_search not counted)."),
  offered: z.number().int().describe("How many tools would be offered without deferral."),
  deferred: z.number().int().describe("How many of them are deferred."),
  reason: z.string().describe("Why they are (or are not) deferred, in one sentence."),
  tokenizer: z.literal("o200k_base").describe("What the token counts are made with (gpt-tokenizer)."),
})

export const Settlement = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("completed"),
    title: z.string(),
    output: z.string().describe("What the model reads (bounded)."),
    metadata: Metadata,
    attachments: z.array(FilePart),
    part: ToolPart,
  }),
  z.object({
    status: z.literal("error"),
    error: z.string().describe("What the model reads."),
    kind: z
      .enum([
        "unknown",
        "hook",
        "loop",
        "stale",
        "invalid",
        "failure",
        "permission",
        "interrupted",
        "defect",
        "output",
      ])
      .describe("Why: `permission` (denied or rejected), `invalid` input, a `failure` of the tool, …"),
    blocked: z.boolean().describe("A person's no, or no one to ask: an agent's turn stops."),
    metadata: Metadata,
    part: ToolPart,
  }),
])

export const Question = z.object({
  question: z.string(),
  header: z.string().describe("A very short label for it."),
  options: z.array(z.object({ label: z.string(), description: z.string() })),
  multiple: z.boolean().optional().describe("Several options may be picked (default: one)."),
  custom: z.boolean().optional().describe("An answer of one's own may be typed (default: true)."),
})

export const QuestionRequest = z
  .object({
    id: z.string().describe("que_…"),
    sessionID: z.string(),
    questions: z.array(Question),
    tool: z.object({ messageID: z.string(), callID: z.string() }).optional(),
    time: Time,
  })
  .describe("Questions a tool put to a person, waiting for the answers.")

export const ProjectTrustInfo = z
  .object({
    trusted: z.boolean().describe("Whether what the project brings (tool files, plugins, ...) applies."),
    reason: z
      .enum(["not-needed", "store", "changed", "option", "env", "untrusted"])
      .describe(
        "Why: it brings nothing that needs trust, the person trusted it, it changed since, --trust, TOOLBELT_TRUST=1, or not trusted.",
      ),
    leftOut: z
      .array(z.object({ kind: z.string(), file: z.string(), detail: z.string() }))
      .describe("What the project brings that this server left out, each with the file it is written in."),
    howToTrust: z.string().describe("The command that trusts the project (then restart the server)."),
  })
  .describe("The project's workspace trust.")

export const ServerInfo = z.object({
  directory: z.string().describe("The project this server works in."),
  host: z.string().describe("The host this server runs on (a session's `host` says where it was created)."),
  version: z.string(),
  model: z.string().nullable().describe("The model agent turns use (`provider/id`), or null: none."),
  auth: z.boolean().describe("Whether requests need the token (or the page's cookie)."),
  epoch: z.string().describe("Names this server process; the first part of every event id."),
  trust: ProjectTrustInfo,
  notOffered: z
    .array(z.object({ name: z.string(), reason: z.string() }))
    .describe(
      "What the server's agent is not offered, each with why: registered tools that need something configured (a search provider), and MCP servers from config that are not running (`mcp:<server>`).",
    ),
})

// Requests.

export const NewSession = z
  .object({
    title: z.string().max(500).optional(),
    agent: z
      .string()
      .regex(/^[\w-]{1,64}$/)
      .optional()
      .describe("Whose permissions apply (default: build)."),
  })
  .strict()

export const SessionsQuery = z.object({
  search: z.string().max(200).optional().describe("Only sessions whose title or id contains this."),
  host: z.string().min(1).max(255).optional().describe("Only sessions created on this host."),
  project: z
    .string()
    .min(1)
    .max(4096)
    .optional()
    .describe("Only sessions of this project directory (default on SQLite: this server's project)."),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
})

export const CallBody = z
  .object({
    tool: ToolName,
    input: z.unknown().default({}).describe("The tool's arguments (its input schema)."),
    callID: id("call")
      .optional()
      .describe("Choose it to make the call idempotent: a finished call is answered from its record."),
    agent: z
      .string()
      .regex(/^[\w-]{1,64}$/)
      .optional()
      .describe("Whose permissions apply (default: the session's agent)."),
  })
  .strict()

export const TurnBody = z
  .object({
    prompt: z.string().min(1, "the prompt is empty").max(1_000_000),
    steps: z.number().int().min(1).max(500).optional().describe("The most model calls in the turn."),
  })
  .strict()

export const ReplyBody = z
  .object({
    reply: z.enum(["once", "always", "reject"]).describe('"always" saves the ask\'s `always` list.'),
    message: z
      .string()
      .max(10_000)
      .optional()
      .describe("With reject: what the agent should do instead; it reaches the model."),
  })
  .strict()
  .refine((body) => body.message === undefined || body.reply === "reject", {
    message: "a message goes with reject only",
    path: ["message"],
  })

export const AnswerBody = z
  .object({
    answers: z
      .array(z.array(z.string().max(10_000)).max(100))
      .max(100)
      .describe(
        "One list of labels per question, in order (an option's label, or one's own words); empty: unanswered.",
      ),
  })
  .strict()

export const SessionParams = z.object({ id: SessionID })
export const IdParams = z.object({ id: id("request") })

export const SessionFilter = z.object({
  session: SessionID.optional().describe("Only this session's."),
})

export const JournalQuery = z.object({
  call: id("call").optional().describe("Only this call's entries."),
})

export const EventsQuery = z.object({
  session: z
    .array(SessionID)
    .optional()
    .describe("Only these sessions' events (repeat, or separate by commas)."),
  after: z
    .string()
    .max(100)
    .optional()
    .describe("Resume after this event id (as the Last-Event-ID header does, which wins)."),
})
