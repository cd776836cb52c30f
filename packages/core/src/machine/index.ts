/** The loop's machine and the data it holds: what every layer above reads and writes. */
export { isInDoubtCall, pendingInteractions, SUPERSEDED_RESULT } from './calls.js';
export { extend } from './extend.js';
export { agentMachine } from './machine.js';
export type * from './state.js';
export { initialState, type LoopState, transition } from './transition.js';
