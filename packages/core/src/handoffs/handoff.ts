/**
 * `handoff(agent, options)` and the list an agent's `handoffs` comes to (DESIGN §27): each entry
 * checked and given its tool name once, when the list is first needed — a function is called then,
 * so two agents can name each other.
 */
import { TurnkitError } from '../errors.js';
import { TOOL_CODE } from '../keys.js';
import {
  type AnyAgent,
  checkApprovalPolicy,
  checkKeptAsk,
  type Handoff,
  type HandoffOptions,
} from '../tools/index.js';

/**
 * A handoff as the loop uses it: its agent, its tool's name and description, its options, and the
 * code its transfer tool carries (made by `handoff()`; none for a plain agent listed).
 */
export interface ResolvedHandoff {
  readonly agent: AnyAgent;
  readonly toolName: string;
  readonly description: string;
  readonly options: HandoffOptions;
  readonly code?: object;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The handoff `handoff(agent, options)` makes, checked; `code` (the interpreter's, which
 * `handoff` passes in) goes with it to its transfer tool, which then runs as a function tool
 * made by `defineTool` does (an approval policy's assignees resolved by it).
 */
export function handoffFrom(agent: AnyAgent, options: HandoffOptions, code: object): Handoff {
  if (!isAgent(agent)) {
    throw new TurnkitError('CONFIG_INVALID', 'handoff(agent, options) takes an agent made by defineAgent.');
  }
  checkOptions(`handoff(${agent.name})`, options);
  return Object.freeze({ kind: 'handoff', agent, options: { ...options }, [TOOL_CODE]: code });
}

/** An agent made by `defineAgent` (it has a tool index), as far as a handoff needs one. */
function isAgent(value: unknown): value is AnyAgent {
  return typeof value === 'object' && value !== null && (value as AnyAgent).toolIndex instanceof Map;
}

function checkOptions(owner: string, options: HandoffOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${owner}: options must be an object { toolName?, description?, inputFilter?, approval? }.`,
    );
  }
  const { toolName, description, inputFilter, approval } = options;
  if (toolName !== undefined && (typeof toolName !== 'string' || !TOOL_NAME.test(toolName))) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `${owner}: toolName ${JSON.stringify(toolName)} is not allowed: use 1 to 64 letters, digits, '_' or '-'.`,
    );
  }
  if (description !== undefined && typeof description !== 'string') {
    throw new TurnkitError('CONFIG_INVALID', `${owner}: description must be a string.`);
  }
  if (inputFilter !== undefined && typeof inputFilter !== 'function') {
    throw new TurnkitError('CONFIG_INVALID', `${owner}: inputFilter must be a function of the messages.`);
  }
  if (approval !== undefined && typeof approval !== 'boolean') {
    checkApprovalPolicy(owner, approval);
    // A handoff's approval has no expiry of its own: a reminder could never be sent.
    checkKeptAsk(`${owner}: approval`, approval, false);
  }
}

/** `transfer_to_<name>`, the name's other characters as `_`, cut to the 64 characters a tool name may have. */
export function transferToolName(agentName: string): string {
  return `transfer_to_${agentName.replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64);
}

const resolved = new WeakMap<AnyAgent, readonly ResolvedHandoff[]>();

/**
 * The handoffs of `agent`, checked, each with its tool name; read once (a function is called the
 * first time) and kept. `CONFIG_INVALID` for an entry that is neither an agent nor a handoff, a
 * handoff to the agent itself, or two handoffs (or a handoff and a tool) under one tool name.
 */
export function handoffsOf(agent: AnyAgent): readonly ResolvedHandoff[] {
  const known = resolved.get(agent);
  if (known) return known;
  const { handoffs } = agent;
  let entries: unknown = handoffs ?? [];
  if (typeof handoffs === 'function') {
    try {
      entries = handoffs();
    } catch (error) {
      throw new TurnkitError(
        'CONFIG_INVALID',
        `Agent ${agent.name}: its handoffs function failed (${(error as Error)?.message ?? String(error)}).`,
        { cause: error },
      );
    }
  }
  if (!Array.isArray(entries)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Agent ${agent.name}: handoffs must be a list of agents and handoff(agent, options), or a function returning one.`,
    );
  }
  const list = entries.map((entry: unknown, index) => resolveEntry(agent, entry, index));
  const names = new Set(agent.toolIndex.keys());
  for (const { toolName } of list) {
    if (names.has(toolName)) {
      throw new TurnkitError(
        'CONFIG_INVALID',
        `Agent ${agent.name} has two tools named ${toolName} (a handoff's and another): give the handoff its own toolName.`,
      );
    }
    names.add(toolName);
  }
  const frozen = Object.freeze(list);
  resolved.set(agent, frozen);
  return frozen;
}

function resolveEntry(owner: AnyAgent, entry: unknown, index: number): ResolvedHandoff {
  const made = entry as Partial<Handoff> | undefined;
  const target = made?.kind === 'handoff' ? made.agent : entry;
  if (!isAgent(target)) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Agent ${owner.name}: handoffs[${index}] is neither an agent (defineAgent) nor handoff(agent, options); with agents that name each other, return the list from a function.`,
    );
  }
  if (target === owner) {
    throw new TurnkitError(
      'CONFIG_INVALID',
      `Agent ${owner.name}: handoffs[${index}] hands the run to itself.`,
    );
  }
  const options = made?.kind === 'handoff' ? (made.options ?? {}) : {};
  const code = made?.kind === 'handoff' ? (made as { [TOOL_CODE]?: object })[TOOL_CODE] : undefined;
  return {
    ...(code ? { code } : {}),
    agent: target,
    toolName: options.toolName ?? transferToolName(target.name),
    description:
      options.description ??
      `Hand the conversation over to agent ${target.name}: it answers the user from here on. Call it alone, when ${target.name} is the right one to go on.`,
    options,
  };
}
