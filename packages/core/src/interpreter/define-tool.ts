/**
 * `defineTool` and `shellAskTool`, as the package exports them: the checked tool (tools/) with the
 * code that runs it under `TOOL_CODE` (tool-code.ts: its `execute`, `resume` and `needsApproval`
 * run, a `ctx.ask` made an interaction). DESIGN §18: an option that brings code carries it, so a
 * program without function tools bundles none of it.
 */
import { TOOL_CODE } from '../keys.js';
import {
  type AnyFunctionTool,
  type FunctionTool,
  type FunctionToolConfig,
  type ShellAskToolOptions,
  shellToolFrom,
  toolFrom,
} from '../tools/index.js';
import * as code from './tool-code.js';

/** `tool` with the code that runs it: an own enumerable key, so a spread copy (`{ ...tool, name }`) still runs. */
function carrying<T extends object>(tool: T): T {
  return Object.assign(tool, { [TOOL_CODE]: code });
}

/**
 * Defines a function tool the model can call.
 *
 * @example
 * const queryInventory = defineTool({
 *   name: 'query_inventory',
 *   description: 'Find vials of a cell line in the freezer.',
 *   input: z.object({ cellLine: z.string() }),
 *   execute: async ({ cellLine }) => ({ cellLine, vials: 3 }),
 * });
 */
export function defineTool<Input, Output, Context = unknown>(
  config: FunctionToolConfig<Input, Output, Context>,
): FunctionTool<Input, Output, Context> {
  return carrying(toolFrom(config));
}

/**
 * A shell tool whose `AskUserQuestion '<json>'` / `ask '<json>'` commands pause the run for the
 * human, exactly as the question tool does; other commands go to `run(command, ctx)`.
 *
 * @example
 * const shell = shellAskTool({ run: async (command) => execInSandbox(command) });
 * const agent = defineAgent({ name: 'coder', instructions: '…', model, tools: [shell] });
 */
export function shellAskTool<Context = unknown>(options: ShellAskToolOptions<Context>): AnyFunctionTool {
  return carrying(shellToolFrom(options));
}
