/**
 * `mcpTools` against the real MCP SDK server, in process (the era-deciding `serveStdio` entry over
 * an in-memory pipe) and over loopback HTTP (`createMcpHandler`): an `input_required` answer pauses
 * the run with an `input` interaction per elicitation, and the answer — here, in another Node
 * process with a fresh connection — retries the call with the server's `requestState`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { provideInput, runTurn } from '@turnkit/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { mcpTools } from '../src/protocols/mcp/index.js';
import { type LabLog, LONG_NAME, labAgent, labServer } from './fixtures/mcp-lab.js';
import { closeClients, inMemoryClient } from './helpers/mcp-clients.js';
import { type Listening, listen } from './http-fixtures.js';

const run = promisify(execFile);
const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const answerScript = fileURLToPath(new URL('./fixtures/mcp-answer.ts', import.meta.url));
const workDirectory = mkdtempSync(join(tmpdir(), 'turnkit-mcp-'));
afterAll(() => rmSync(workDirectory, { recursive: true, force: true }));

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.allSettled([...cleanups.splice(0).map((cleanup) => cleanup()), closeClients()]);
});

/** A client on the modern era, connected in process to a fresh lab server. */
const inProcessClient = (log: LabLog) => inMemoryClient(() => labServer(log));

/** The lab served over loopback HTTP. */
async function httpLab(log: LabLog): Promise<Listening> {
  const handler = createMcpHandler(() => labServer(log));
  const server = await listen((request) => handler.fetch(request));
  cleanups.push(() => server.close());
  return server;
}

describe('mcpTools: an MCP tool answering input_required pauses the run', () => {
  it('asks with an input interaction carrying the elicitation, and the answer completes the call', async () => {
    const log: LabLog = { deployed: [] };
    const tools = await mcpTools(await inProcessClient(log));
    const deploy = tools.names.get('lab.deploy')!;
    const agent = labAgent(tools, deploy, { env: 'prod' });

    const paused = await runTurn(agent, { input: 'Deploy the build' });
    expect(paused.status).toBe('needs_input');
    expect(paused.pendingQuestion).toMatchObject({ kind: 'input', toolName: deploy });
    expect(paused.pendingQuestion?.payload).toMatchObject({
      message: 'Deploy to prod?',
      schema: { properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    expect(log.deployed).toEqual([]);

    const done = await provideInput(agent, paused.snapshot, { value: { confirm: true, note: 'go' } });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Tool said: deployed to prod (go)');
    expect(log.deployed).toEqual(['prod']);
  });

  it('takes the answer in another Node process, on a fresh connection, and the tool completes', async () => {
    const log: LabLog = { deployed: [] };
    const server = await httpLab(log);
    const url = `${server.url}/mcp`;
    const tools = await mcpTools({ url });
    cleanups.push(() => tools.close());
    const agent = labAgent(tools, tools.names.get('lab.deploy')!, { env: 'prod' });
    const paused = await runTurn(agent, { input: 'Deploy the build' });
    expect(paused.pendingQuestion?.kind).toBe('input');
    await tools.close(); // this process lets go of the server: only the snapshot crosses over
    const file = join(workDirectory, 'paused.txt');
    writeFileSync(file, paused.snapshot);

    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', answerScript, url, file, JSON.stringify({ confirm: true, note: 'from afar' })],
      { cwd: packageRoot, timeout: 30_000 },
    );
    const { pid, result } = JSON.parse(stdout) as {
      pid: number;
      result: Awaited<ReturnType<typeof runTurn>>;
    };

    expect(pid).not.toBe(process.pid);
    expect(result.status).toBe('completed');
    expect(result.runId).toBe(paused.runId);
    expect(result.output).toBe('Tool said: deployed to prod (from afar)');
    expect(log.deployed).toEqual(['prod']);
  }, 40_000);

  it('asks several elicitations of one round one after another, then retries once with all answers', async () => {
    const tools = await mcpTools(await inProcessClient({ deployed: [] }));
    const agent = labAgent(tools, 'lab_label', { vial: 'K562-7' });

    const first = await runTurn(agent, { input: 'Label the vial' });
    expect(first.pendingQuestion?.payload).toMatchObject({ message: 'Which box?' });
    const second = await provideInput(agent, first.snapshot, { value: { box: 'B2' } });
    expect(second.status).toBe('needs_input');
    expect(second.pendingQuestion?.payload).toMatchObject({ message: 'Which color?' });
    await expect(provideInput(agent, second.snapshot, { value: { color: 'green' } })).rejects.toMatchObject({
      code: 'ANSWER_INVALID',
    });
    const done = await provideInput(agent, second.snapshot, { value: { color: 'blue' } });
    expect(done.output).toBe('Tool said: {"vial":"K562-7","box":"B2","color":"blue"}');
  });

  it('offers the MCP input schema as given and validates the model’s arguments against it', async () => {
    const client = await inProcessClient({ deployed: [] });
    const tools = await mcpTools(client);
    const listed = (await client.listTools()).tools.find((tool) => tool.name === 'lab.deploy')!;
    const { $schema: _drop, ...given } = listed.inputSchema as Record<string, unknown>;
    const deploy = tools.find((tool) => tool.name === tools.names.get('lab.deploy'))!;
    expect(deploy.spec.function.parameters).toEqual(given);
    expect(deploy.spec.function.description).toBe('Deploys a build after the user confirms.');

    const result = await runTurn(labAgent(tools, deploy.name, { env: 'moon' }), { input: 'Deploy' });
    expect(result.messages[2]?.content).toContain('"error_code":"invalid_arguments"');
  });

  it('include picks tools by MCP name; needsApproval pauses the named ones first', async () => {
    const log: LabLog = { deployed: [] };
    const tools = await mcpTools(await inProcessClient(log), {
      include: ['lab.deploy', 'sleep'],
      needsApproval: ['sleep'],
      prefix: 'lab_',
    });
    expect([...tools.names]).toEqual([
      ['lab.deploy', 'lab_lab_deploy'],
      ['sleep', 'lab_sleep'],
    ]);
    const paused = await runTurn(labAgent(tools, 'lab_sleep', { ms: 1 }), { input: 'Nap' });
    expect(paused.pendingQuestion).toMatchObject({ kind: 'approval', toolName: 'lab_sleep' });
  });
});

describe('mcpTools: names', () => {
  it('maps dotted names, shortens long ones with a hash, and tells colliding ones apart', async () => {
    const tools = await mcpTools(await inProcessClient({ deployed: [] }));
    expect(tools.names.get('lab_deploy')).toBe('lab_deploy'); // already valid: kept
    expect(tools.names.get('lab.deploy')).toMatch(/^lab_deploy_[0-9a-f]{8}$/); // would collide: hashed
    expect(tools.names.get('lab.label')).toBe('lab_label');
    const long = tools.names.get(LONG_NAME)!;
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^lab_very_long_tool_name_.*_[0-9a-f]{8}$/);
    const done = await runTurn(labAgent(tools, long, {}), { input: 'Go' });
    expect(done.output).toBe('Tool said: long ok');
  });
});
