/**
 * `defineTool` and `shellAskTool`, as the package exports them: the checked tool (tools/) with the
 * machinery of its own asks under `ASKS` (tool-asks.ts: a `ctx.ask` made an interaction, the answer
 * handed to `resume`). DESIGN §18: an option that brings code carries it, so a program without
 * function tools bundles none of it.
 */
import { ASKS } from '../keys.js';
import {
  type AnyFunctionTool,
  type FunctionTool,
  type FunctionToolConfig,
  type ShellAskToolOptions,
  shellToolFrom,
  toolFrom,
} from '../tools/index.js';
import * as asks from './tool-asks.js';

/** `tool` with the ask machinery: an own enumerable key, so a spread copy (`{ ...tool, name }`) still asks. */
function carrying<T extends object>(tool: T): T {
  return Object.assign(tool, { [ASKS]: asks });
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
