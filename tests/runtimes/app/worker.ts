// Cloudflare Worker (src/index.ts): workerd runs it without `nodejs_compat`.
import { handler } from './handler.js';

export default { fetch: handler };
