/**
 * The store-cycle table alone (issue 35): `npm run store-cycle --workspace=@turnkit/bench`, after
 * building core, adapters and this package. `npm run bench` prints the same table with the rest.
 */
import { buildHistory } from './history.js';
import { benchStoreCycle, CYCLE_STORE_LENGTHS, printStoreCycle } from './store-cycle.js';

const histories = new Map(CYCLE_STORE_LENGTHS.map((length) => [length, buildHistory(length)] as const));
const goals = printStoreCycle(await benchStoreCycle(histories));
for (const goal of goals) console.log(`  ${goal.verdict} ${goal.goal}: ${goal.measured} (${goal.target})`);
