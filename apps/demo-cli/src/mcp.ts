/**
 * `npm run demo:mcp`: the LN2 demo agent as an MCP server — protocol 2026-07-28 over Streamable
 * HTTP on localhost, one tool (`ln2-inventory`, taking `{ message }`), played by the offline
 * script. An MCP client with an elicitation handler calls it; the agent's questions and approvals
 * come back as form elicitations (`input_required`), and the client's retry continues the run,
 * kept in memory between calls (store mode). Only requests whose `Host` is localhost are served, so
 * a web page elsewhere cannot reach it through DNS rebinding. `PORT` picks the port (default 3333).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mcpServer } from '@turnkit/adapters/mcp';
import { memoryStore } from '@turnkit/core';
import { deskScript } from '@turnkit/demo-models';
import { langFromEnv } from './i18n.js';
import { AGENT_NAME, createAgent } from './scenario/agent.js';
import { initialFreezer } from './scenario/freezer.js';
import { scenarioModel } from './scenario/script.js';
import { storageScenarioModel } from './scenario/storage.js';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const port = Number(process.env.PORT ?? 3333);
const lang = langFromEnv(process.env);
const agent = createAgent({
  lang,
  model: scenarioModel(lang),
  storageModel: storageScenarioModel(lang),
  deskModel: deskScript({ leadName: AGENT_NAME, language: lang === 'zh-CN' ? 'zh' : 'en' }),
});
// Each run starts with a fresh freezer in its context, as a chat of `npm run demo` does.
const mcp = mcpServer(agent, { store: memoryStore(), context: () => initialFreezer() });

/** The Web `Request` of a Node request; aborted when the client goes away. */
async function webRequest(req: IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const aborted = new AbortController();
  req.socket.once('close', () => aborted.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
  return new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    body,
    signal: aborted.signal,
  });
}

/** Writes a Web `Response` to Node, streaming its body (SSE included). */
async function send(res: ServerResponse, response: Response): Promise<void> {
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  res.writeHead(response.status);
  const reader = response.body?.getReader();
  for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
    res.write(chunk.value);
  }
  res.end();
}

const server = createServer(async (req, res) => {
  try {
    const host = new URL(`http://${req.headers.host ?? ''}`).hostname;
    if (!LOCAL_HOSTS.has(host)) return await send(res, new Response('Forbidden host', { status: 403 }));
    await send(res, await mcp.fetch(await webRequest(req)));
  } catch (error) {
    console.error(error);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
});

server.listen(port, '127.0.0.1', () => {
  console.log(`LN2 inventory agent as an MCP server: http://127.0.0.1:${port}/mcp (tool: ${agent.name})`);
  console.log('Connect an MCP client with an elicitation handler (protocol 2026-07-28), e.g.:');
  console.log(
    `  const tools = await mcpTools({ url: 'http://127.0.0.1:${port}/mcp' }); // @turnkit/adapters/mcp`,
  );
  console.log('Ctrl-C stops it.');
});
process.once('SIGINT', () => {
  void mcp.close();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
