/** Cloudflare Workers entry (module syntax), run by workerd without `nodejs_compat` (workerd.capnp). */
import { handle } from './agent.js';

export default { fetch: handle };
