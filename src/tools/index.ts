import type { AnyInfo } from "../runtime/tool/define.ts"
import type { Availability } from "../runtime/tool/internal.ts"
import type { AnyTool } from "../runtime/tool/tool.ts"
import { ApplyPatchTool } from "./apply_patch/apply_patch.ts"
import { BashTool } from "./bash/bash.ts"
import { BashKillTool } from "./bash_kill/bash_kill.ts"
import { BashOutputTool } from "./bash_output/bash_output.ts"
import { BatchTool } from "./batch/batch.ts"
import { CodesearchTool } from "./codesearch/codesearch.ts"
import { EditTool } from "./edit/edit.ts"
import { GlobTool } from "./glob/glob.ts"
import { GrepTool } from "./grep/grep.ts"
import { InvalidTool } from "./invalid/invalid.ts"
import { ListTool } from "./list/list.ts"
import { LspTool } from "./lsp/lsp.ts"
import { MultiEditTool } from "./multiedit/multiedit.ts"
import { PlanEnterTool } from "./plan_enter/plan_enter.ts"
import { PlanExitTool } from "./plan_exit/plan_exit.ts"
import { QuestionTool } from "./question/question.ts"
import { ReadTool } from "./read/read.ts"
import { SkillTool } from "./skill/skill.ts"
import { TaskTool } from "./task/task.ts"
import { TodoReadTool } from "./todoread/todoread.ts"
import { TodoWriteTool } from "./todowrite/todowrite.ts"
import { ToolSearchTool } from "./tool_search/tool_search.ts"
import { WebfetchTool } from "./webfetch/webfetch.ts"
import { WebsearchTool } from "./websearch/websearch.ts"
import { WriteTool } from "./write/write.ts"

/**
 * Models trained on Codex's patch format get `apply_patch` instead of `edit`/`write`/`multiedit`
 * (opencode's rule: a `gpt-` model that is not `oss` or `gpt-4`). Without a model (CLI, MCP) both are
 * offered.
 */
export function prefersPatch(modelID: string | undefined): boolean {
  if (!modelID) return false
  const id = modelID.toLowerCase()
  return id.includes("gpt-") && !id.includes("oss") && !id.includes("gpt-4")
}

const forPatchModels = (env: Availability) => !env.modelID || prefersPatch(env.modelID)
const forOtherModels = (env: Availability) => !prefersPatch(env.modelID)

const writer = { destructive: true } as const
const reader = { readOnly: true } as const
// The web tools reach outside the machine (MCP: openWorldHint) and change nothing in it.
const web = { readOnly: true, openWorld: true } as const

/** The built-in tools, by the names they are registered under. */
export function builtins(): Record<string, AnyTool | AnyInfo> {
  return {
    invalid: InvalidTool,
    read: ReadTool,
    write: { ...WriteTool, available: forOtherModels },
    edit: { ...EditTool, available: forOtherModels, annotations: writer },
    multiedit: { ...MultiEditTool, available: forOtherModels, annotations: writer },
    apply_patch: { ...ApplyPatchTool, available: forPatchModels, annotations: writer },
    list: ListTool,
    glob: { ...GlobTool, annotations: reader },
    grep: { ...GrepTool, annotations: reader },
    bash: { ...BashTool, annotations: writer },
    bash_output: { ...BashOutputTool, annotations: reader },
    bash_kill: { ...BashKillTool, annotations: writer },
    skill: { ...SkillTool, annotations: reader },
    batch: BatchTool,
    webfetch: { ...WebfetchTool, annotations: web },
    websearch: { ...WebsearchTool, annotations: web },
    codesearch: { ...CodesearchTool, annotations: web },
    todowrite: { ...TodoWriteTool, annotations: { idempotent: true } },
    // Reads the list todowrite keeps: hidden wherever todowrite is denied (subagents).
    todoread: { ...TodoReadTool, annotations: reader, permission: "todowrite" },
    question: QuestionTool,
    plan_enter: PlanEnterTool,
    plan_exit: PlanExitTool,
    task: TaskTool,
    lsp: LspTool,
    // Finds deferred tools (MCP, plugins, tool files): needs a toolbelt's index, which lists it only while
    // some are deferred.
    tool_search: {
      ...ToolSearchTool,
      available: (env) => env.extra?.toolSearch !== undefined,
      annotations: { readOnly: true, idempotent: true },
    },
  }
}
