/**
 * The agents of the kept-asks tests (DESIGN §30): a lab assistant that asks which line to thaw (with
 * the question tool it is given) and is done, or that scans the freezer first; each model request's
 * messages recorded, so "the model read the late message once" is counted.
 */
import { type AgentConfig, type ChatMessage, defineAgent, type QuestionTool, type Tool } from '@turnkit/core';
import { type ScriptedStep, scriptedModel } from '@turnkit/core/testing';

/** Steps that push each request's messages onto `requests` before answering as `steps` say. */
export function recorded(requests: ChatMessage[][], steps: ScriptedStep[]): ScriptedStep[] {
  return steps.map((step) => (request: { messages: ChatMessage[] }) => {
    requests.push(request.messages);
    return step as never;
  });
}

/** How many user messages saying `text` each recorded request held. */
export const told = (requests: ChatMessage[][], text: string) =>
  requests.map((messages) => messages.filter((message) => message.content === text).length);

/** The question the line agent asks. */
const LINE_QUESTION = {
  name: 'AskUserQuestion',
  arguments: { questions: [{ question: 'Thaw which line?', header: 'Line', options: ['K562', 'HeLa'] }] },
};

/** A lab agent that asks which line with `questionTool`, then says "done". */
export function lineAgent(
  questionTool: QuestionTool,
  requests: ChatMessage[][] = [],
  config: Partial<AgentConfig> = {},
) {
  return defineAgent({
    name: 'lab',
    instructions: 'Lab assistant.',
    model: scriptedModel(recorded(requests, [{ toolCalls: [LINE_QUESTION] }, 'done'])),
    tools: [questionTool],
    ...config,
  });
}

/** A lab agent that calls `tool` (no arguments), then says "done". */
export function toolAgent(tool: Tool, requests: ChatMessage[][]) {
  return defineAgent({
    name: 'lab',
    instructions: 'Lab assistant.',
    model: scriptedModel(recorded(requests, [{ toolCalls: [{ name: tool.name, arguments: {} }] }, 'done'])),
    tools: [tool],
  });
}
