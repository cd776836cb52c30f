/** Handoffs (DESIGN §27): `handoff()`, the transfer tools, the root's graph, and the rules of a step that hands off. */
export { type ActiveAgentRecord, agentsReachedBy, handoffIn, playingRoot } from './graph.js';
export { handoffFrom, handoffsOf, type ResolvedHandoff, transferToolName } from './handoff.js';
export { HANDOFF_IGNORED, handoffMade, transferCalls } from './step.js';
export { playingAgent, transferOf } from './transfer.js';
