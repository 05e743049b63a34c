// The MCP server surface: toolbelt's tools for every MCP client.

export { type AskFallback, type McpSettings, mcpSettings } from "../../runtime/config/mcp-settings.ts"
export { ASK_KEY, answerOf, askForm, fallbackRejection } from "./ask-form.ts"
export { HttpServeError, MCP_PATH, type McpHttpServer, type ServeHttpOptions, serveMcpHttp } from "./http.ts"
export {
  type CreateMcpServerOptions,
  createMcpServer,
  DEFAULT_ANSWER_TIMEOUT_MS,
  MCP_CLIENT,
  type ToolbeltMcpServer,
} from "./server.ts"
export { McpSession } from "./session.ts"
export { type McpStdioServer, type ServeStdioOptions, serveMcpStdio } from "./stdio.ts"
