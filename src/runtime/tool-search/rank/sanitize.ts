// The callable-name rule for server prefixes, kept here so the runtime layer does not import the MCP
// adapter: every character outside `[A-Za-z0-9_-]` becomes `_` (as adapters/mcp-client/name.ts does).

export function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_")
}
