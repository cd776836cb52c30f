// Deno (main.ts): `deno run --allow-net main.ts` — TurnKit needs no other permission.
import { handler } from './handler.js';

Deno.serve({ port: Number(Deno.args[0] ?? 8000) }, handler);
