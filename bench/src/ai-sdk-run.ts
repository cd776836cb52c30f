/**
 * The AI SDK 7 table alone (issue 49): `node --expose-gc bench/dist/ai-sdk.js`, after building core
 * and this package (`npx turbo run build --filter=@turnkit/bench...`). `npm run bench` prints the same
 * table with the rest.
 */
import { loadavg } from 'node:os';
import { AI_SDK_LENGTHS, benchAiSdk, printAiSdk } from './ai-sdk.js';
import { buildHistory } from './history.js';

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
/** As many rounds as `npm run bench` runs. */
const ROUNDS = 6;
const histories = new Map(AI_SDK_LENGTHS.map((length) => [length, buildHistory(length)] as const));
console.log(`Node ${process.version}, load ${load()}`);
const goals = printAiSdk(await benchAiSdk(histories, ROUNDS));
for (const goal of goals) console.log(`  ${goal.verdict} ${goal.goal}: ${goal.measured} (${goal.target})`);
console.log(`load ${load()}`);
