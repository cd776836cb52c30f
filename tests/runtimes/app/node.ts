// Node ≥ 22 (server.ts), on @hono/node-server.
import { serve } from '@hono/node-server';
import { handler } from './handler.js';

serve({ fetch: handler, port: Number(process.argv[2] ?? 3000) });
