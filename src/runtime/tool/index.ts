// The public face of a tool: `import * as Tool from "agent-toolbelt/tool"` gives Tool.make, Tool.define, ...
export type { FilePart, ModelContent } from "../../platform/text/content.ts"
export type { AskInput, Context, InitContext, MetadataUpdate, Result } from "./context.ts"
export { type AnyInfo, type Def, define, type Info, type Init, isInfo } from "./define.ts"
export { isToolFailure, ToolFailure } from "./failure.ts"
export type { Annotations, Availability, Declarations, Offer, Paging } from "./internal.ts"
export { type SchemaOf, type SchemaSource, schema } from "./schema-source.ts"
export { type AnyTool, type MakeConfig, make, type Tool } from "./tool.ts"
