/** The demo agent's name, on its own so the script (which hands runs back to it) needs no agent. */

/** Stable: stored snapshots name the agent, and a resume with another name is refused. */
export const AGENT_NAME = 'ln2-web';
