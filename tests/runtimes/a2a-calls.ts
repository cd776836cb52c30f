/**
 * The A2A scenario each runtime plays (DESIGN §29 on the runtimes of §18), as raw JSON-RPC over
 * fetch — what any A2A 1.0 client sends: the card, a task that asks (input-required), the answer by
 * text, the task completed; an unknown task as a JSON-RPC error; and a streamed task over SSE.
 */

/** A JSON-RPC call to the A2A endpoint at `base` (`/a2a-agent/a2a`); the parsed answer. */
export async function rpc(base: string, method: string, params: unknown) {
  const response = await fetch(`${base}/a2a-agent/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

/** A user message in A2A 1.0's JSON form. */
export const userMessage = (text: string, taskId?: string) => ({
  message: {
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(taskId ? { taskId } : {}),
  },
});

/** The `result` of each `data:` line of an SSE body. */
export function sseResults(text: string): { statusUpdate?: { status: { state: string } } }[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)).result);
}
