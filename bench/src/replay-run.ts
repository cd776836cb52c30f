/**
 * The replay row alone (DESIGN §28, issue 46): `npm run replay --workspace=@turnkit/bench`, after
 * building core and this package. `npm run bench` prints the same row with the rest.
 */
import { benchReplay } from './replay.js';

await benchReplay();
