/** The error an MCP tool call fails with inside the tool, whichever SDK made the call. */

/**
 * A failed MCP call, thrown inside the tool so the model reads its message as a `tool_error` (it is
 * never thrown out of TurnKit's API, so it is a plain `Error`).
 */
export class McpCallError extends Error {
  override readonly name = 'McpCallError';
}
