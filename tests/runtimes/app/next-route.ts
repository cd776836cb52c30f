// Next.js App Router (app/api/agent/[...path]/route.ts), with `basePath: '/api/agent'`.
import { handler } from './handler.js';

export const runtime = 'edge'; // or 'nodejs': the handler runs on both

export { handler as DELETE, handler as GET, handler as HEAD, handler as OPTIONS, handler as POST };
