/**
 * @turnkit/adapters/ag-ui — a TurnKit agent as an AG-UI 1.0 endpoint (DESIGN §15): `RunAgentInput`
 * in, AG-UI events out over Server-Sent Events, pauses as interrupts answered by the next run's
 * `resume`; `agUiProtocol()` mounts it on `createHandler`. No runtime dependency on `@ag-ui/*`: the events are plain JSON.
 */

export type {
  AgUiEvent,
  AgUiInterrupt,
  AgUiMessage,
  AgUiOutcome,
  AgUiToolCall,
  AgUiUsage,
} from './events.js';
export { ACTIVE_AGENT_EVENT, INTERRUPT_EXPIRED_EVENT, STATE_KEY } from './events.js';
export { agUiHandler } from './handler.js';
export { agUiProtocol } from './mount.js';
export type { AgUiHandlerOptions } from './options.js';
