// The built-in tools, by the names they are registered under. Each declares everything about itself (where
// it is offered, its annotations, its permission key, paging) in its own `Tool.define`.
import type { AnyInfo } from "../runtime/tool/define.ts"
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

/** The built-in tools, by the names they are registered under. */
export function builtins(): Record<string, AnyTool | AnyInfo> {
  return {
    invalid: InvalidTool,
    read: ReadTool,
    write: WriteTool,
    edit: EditTool,
    multiedit: MultiEditTool,
    apply_patch: ApplyPatchTool,
    list: ListTool,
    glob: GlobTool,
    grep: GrepTool,
    bash: BashTool,
    bash_output: BashOutputTool,
    bash_kill: BashKillTool,
    skill: SkillTool,
    batch: BatchTool,
    webfetch: WebfetchTool,
    websearch: WebsearchTool,
    codesearch: CodesearchTool,
    todowrite: TodoWriteTool,
    todoread: TodoReadTool,
    question: QuestionTool,
    plan_enter: PlanEnterTool,
    plan_exit: PlanExitTool,
    task: TaskTool,
    lsp: LspTool,
    tool_search: ToolSearchTool,
  }
}
