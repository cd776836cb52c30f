// Bun (index.ts): `bun index.ts`.
import { handler } from './handler.js';

Bun.serve({ port: Number(process.argv[2] ?? 3000), fetch: handler });
