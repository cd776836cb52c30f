/**
 * A sub-agent's run inside its parent's: same run id, context, usage and event stream, its own
 * machine state and interaction-id prefix. Used both to play a child and to route answers to it.
 */
import type { ChildState } from '../machine/index.js';
import type { AnyFunctionTool } from '../tools/index.js';
import { idleState, type Run, stateOf } from './run.js';

/** Plays a run's loop until it rests. Passed down by the loop, because a sub-agent is a loop. */
export type DriveToRest = (run: Run) => Promise<void>;

/** A run for a child agent, inside `parent`, at `state` (or fresh). */
export function childRun(parent: Run, tool: AnyFunctionTool, toolCallId: string, state?: ChildState): Run {
  const binding = tool.subagent!;
  const agent = binding.agent;
  const interactive =
    binding.questions === 'reject'
      ? false
      : binding.questions === 'parent'
        ? true
        : parent.options.interactive;
  return {
    agent,
    runId: parent.runId,
    agentPath: [...parent.agentPath, agent.name],
    idPrefix: `${parent.idPrefix}/${agent.name}@${toolCallId}`,
    parent,
    turn: parent.turn,
    seq: 0,
    state: state ? { value: state.value, context: state.context } : idleState(),
    // The parent's context, read through: a tool's dropped change may replace the parent's object.
    get context() {
      return parent.context;
    },
    set context(value) {
      parent.context = value;
    },
    ...(parent.fence ? { fence: parent.fence } : {}),
    ...(binding.questions === 'choose' ? { routed: true } : {}),
    ...(binding.questions === 'reject' ? { questionsRejected: true } : {}),
    ...(parent.toolSpans?.has(toolCallId) ? { parentSpan: parent.toolSpans.get(toolCallId) } : {}),
    // `single` counts every pending interaction of the run, its sub-agents' included (DESIGN §14).
    ...(parent.single || parent.agent.parallel === 'single' ? { single: true } : {}),
    options: { ...parent.options, interactive },
    events: [],
    usage: parent.usage,
  };
}

/** The machine state of a child run, to keep in its parent. */
export const childState = (run: Run): ChildState => ({ value: stateOf(run), context: run.state.context });

/**
 * What the player an agent tool carries lends to routing answers into a waiting child (resolve.ts):
 * building the child's run to judge and apply the answers there.
 */
export interface ChildRuns {
  childRun: typeof childRun;
}
