// Vercel Edge Function (api/agent.ts): the handler is the function.
import { handler } from './handler.js';

export const config = { runtime: 'edge' };

export default handler;
