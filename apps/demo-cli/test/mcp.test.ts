/**
 * `npm run demo:mcp`: the LN2 demo agent as an MCP server, started as the root script starts it
 * (`node --import tsx apps/demo-cli/src/mcp.ts` from the repository root, here on a free `PORT`),
 * and driven over loopback HTTP by the MCP SDK's own client, whose elicitation handler answers the
 * agent's question and approval as a person would. tsx loads `@turnkit/adapters` from its dist,
 * which turbo builds before this package's tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client, type ElicitResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, PACKAGE_DIR } from './helpers.js';

const REPO_ROOT = join(PACKAGE_DIR, '..', '..');

const started: ChildProcess[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  // A test that failed before stopping its server must not leave it listening.
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

/** A port nothing listens on: the system picks one, and it is freed again for the server to take. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (address === null || typeof address === 'string') throw new Error('The probe server has no port');
  return address.port;
}

/** The demo's MCP server running as a child process, and what it has written so far. */
interface DemoServer {
  child: ChildProcess;
  /** The endpoint the server printed once it listened. */
  url: string;
  output: { stdout: string; stderr: string };
}

/** Runs `node --import tsx apps/demo-cli/src/mcp.ts` and resolves once it says where it listens. */
function startDemoServer(port: number): Promise<DemoServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/demo-cli/src/mcp.ts'], {
    cwd: REPO_ROOT,
    env: cleanEnv({ PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  const output = { stdout: '', stderr: '' };
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      output.stderr += chunk.toString('utf8');
    });
    child.stdout.on('data', (chunk: Buffer) => {
      output.stdout += chunk.toString('utf8');
      const listening = /MCP server: (http:\/\/\S+\/mcp)/.exec(output.stdout);
      if (listening) resolve({ child, url: listening[1]!, output });
    });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      reject(new Error(`The MCP server exited (${code ?? signal}) before listening:\n${output.stderr}`)),
    );
  });
}

/** An SDK client on protocol 2026-07-28 whose elicitation handler is `answer`. */
async function connectClient(
  url: string,
  answer: (message: string, fields: string[]) => ElicitResult,
): Promise<Client> {
  const client = new Client(
    { name: 'demo-mcp-test', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', async ({ params }) =>
    answer(params.message, 'requestedSchema' in params ? Object.keys(params.requestedSchema.properties) : []),
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

describe('npm run demo:mcp', () => {
  it('serves the LN2 agent on PORT: a client lists its tool, answers its question and approval, and reads the thaw; SIGTERM stops it', async () => {
    const port = await freePort();
    const server = await startDemoServer(port);
    expect(server.url).toBe(`http://127.0.0.1:${port}/mcp`);

    const asked: string[] = [];
    const client = await connectClient(server.url, (message, fields): ElicitResult => {
      asked.push(message);
      if (fields.includes('approved')) return { action: 'accept', content: { approved: true } };
      return { action: 'accept', content: { q0: 'K562-dTAG', q1: ['Viability count'] } };
    });

    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: 'ln2-inventory',
      description:
        'Ask the ln2-inventory agent. It may pause to ask you questions or to have a tool call approved.',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    });

    const result = await client.callTool({
      name: 'ln2-inventory',
      arguments: { message: 'Thaw one K562 vial for tomorrow’s experiment.' },
    });

    expect(asked).toEqual([
      'The freezer holds 3 lines matching “K562”: K562, K562-dTAG, K562-RTCB. Which one should I thaw?\n' +
        'Which follow-up tasks should I add to the thaw record?',
      'Approve record_thaw?\n' +
        'Takes 1 vial of K562-dTAG out of box 3 (B1); 1 will remain.\n' +
        'Input: {"cellLine":"K562-dTAG","vials":1,"followUps":["Viability count"]}',
    ]);
    expect(result.isError).toBeFalsy();
    // The agent's final answer is its typed thaw plan: MCP sends it as JSON text.
    const content = result.content as { type: string; text: string }[];
    expect(content.map((item) => item.type)).toEqual(['text']);
    expect(JSON.parse(content[0]!.text)).toEqual({
      summary: 'Done: thawed 1 vial of K562-dTAG from box 3 (B1), 1 left. Follow-ups: Viability count.',
      thawed: [{ cellLine: 'K562-dTAG', box: '3', positions: ['B1'], vialsLeft: 1 }],
      medium: null,
      followUps: ['Viability count'],
      nextSteps: ['Warm the vial at 37 °C and spin it down within 10 minutes.'],
    });

    await client.close();
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGTERM' });
    expect(server.output.stderr).toBe('');
  });
});
