/**
 * `defineTool`, `shellAskTool`, `askUserQuestion` and `handoff`, as the package exports them: the
 * checked tool (tools/) or handoff (handoffs/) with the code that runs a tool under `TOOL_CODE`
 * (tool-code.ts: its `execute`, `resume` and `needsApproval` run, a `ctx.ask` made an interaction,
 * who may answer resolved). DESIGN §18: an option that brings code carries it, so a program
 * without tools bundles none of it.
 */
import { handoffFrom } from '../handoffs/index.js';
import { TOOL_CODE } from '../keys.js';
import {
  type AnyAgent,
  type AnyFunctionTool,
  type AskUserQuestionOptions,
  type FunctionTool,
  type FunctionToolConfig,
  type Handoff,
  type HandoffOptions,
  type QuestionTool,
  questionToolFrom,
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

/**
 * The AskUserQuestion tool: the model asks the human 1–4 multiple-choice questions, and the turn
 * pauses with `needsInput` until `answerQuestion` supplies the answers.
 */
export function askUserQuestion(options: AskUserQuestionOptions = {}): QuestionTool {
  return carrying(questionToolFrom(options));
}

/**
 * Lets an agent hand the run to `agent`, with options: the tool's name and description, an
 * `inputFilter` for what the handed-to agent's model is sent, an `approval` before the switch.
 * List it in `defineAgent({ handoffs })` (a plain agent there means default options).
 *
 * @example
 * const triage = defineAgent({
 *   name: 'triage',
 *   instructions: 'Route the user to the right desk.',
 *   model: scriptedModel(['Hello!']),
 *   handoffs: () => [
 *     handoff(billing, {
 *       description: 'Invoices, refunds and payment questions.',
 *       inputFilter: (messages) => messages.filter((message) => message.role !== 'tool'),
 *       approval: true,
 *     }),
 *   ],
 * });
 */
export function handoff(agent: AnyAgent, options: HandoffOptions = {}): Handoff {
  return handoffFrom(agent, options, code);
}
