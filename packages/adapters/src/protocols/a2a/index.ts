/**
 * @turnkit/adapters/a2a — the Agent2Agent protocol (DESIGN §29) on the real `@a2a-js/sdk` (an
 * optional peer): `a2aProtocol()` serves a TurnKit agent to other agents from `createHandler`, and
 * `a2aAgentTool()` makes a remote A2A agent a TurnKit tool whose questions pause the run.
 */

export type { A2aCardOptions, A2aSkill } from './card.js';
export { A2A_VERSIONS } from './card.js';
export { type A2aProtocolOptions, AGENT_CARD_PATH, a2aProtocol } from './mount.js';
export { type A2aAgentToolOptions, a2aAgentTool } from './tool.js';
export { A2aRemoteError, PENDING_KEY } from './wire.js';
