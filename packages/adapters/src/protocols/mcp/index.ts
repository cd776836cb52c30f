/**
 * @turnkit/adapters/mcp — MCP both ways (DESIGN §15): `mcpTools` gives an agent the tools of an MCP
 * server (a call answered `input_required` pauses the run), and `mcpServer` serves an agent as an
 * MCP tool (a pause answers `input_required`), which `mcpProtocol()` mounts on `createHandler`. On the official TypeScript SDK v2, protocol
 * 2026-07-28; `@modelcontextprotocol/client` and `/server` are optional peer dependencies. `mcpTools`
 * also takes an application `Client` of `@modelcontextprotocol/sdk` 1.x (its tools work; it cannot
 * pause a run).
 */
export type { McpHttpSource, McpSource, McpStdioSource } from './connect.js';
export { mcpProtocol } from './mount.js';
export { mapToolNames } from './names.js';
export type { McpListedTool, McpSdk1Client } from './sdk1.js';
export type { McpFetchOptions, McpServerHandler, McpServerOptions } from './server.js';
export { mcpServer } from './server.js';
export type { McpFunctionTool, McpToolCall, McpTools, McpToolsOptions } from './tools.js';
export { mcpTools } from './tools.js';
