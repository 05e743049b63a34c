// The MCP client: tools from any MCP server, registered like every other tool.
export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  type McpConfig,
  McpConfigError,
  type McpLocalConfig,
  type McpRemoteConfig,
  type McpServerConfig,
  parseMcpConfig,
  parseServerConfig,
} from "./config.ts"
export { type ConnectMcpServersOptions, connectMcpServers, type McpServers } from "./connect-mcp-servers.ts"
export { EMPTY_ERROR, modelContent } from "./content.ts"
export { definitionOf, fingerprint, type ToolDefinition } from "./fingerprint.ts"
export { DRIFT_PERMISSION } from "./mcp-tool.ts"
export { sanitize, toolName } from "./name.ts"
export type { McpTransportKind } from "./open-client.ts"
export type { McpServerStatus } from "./server-connection.ts"
