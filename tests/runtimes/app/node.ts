/** Node 20 entry, on @hono/node-server as the README's handler example does. */
import { serve } from '@hono/node-server';
import { handle } from './agent.js';

serve({ fetch: handle, port: Number(process.argv[2]), hostname: '127.0.0.1' });
