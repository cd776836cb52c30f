/**
 * Store mode as one value: its backend (core's sessions) and the routes only it serves (sweep,
 * answer links, stop, inbox, fork, extend). `createHandler` hands it to the handler's body;
 * `createClientHeldHandler` does not, so a bundle of that one holds none of it (issue 27).
 */
import { storeBackend } from './backend.js';
import { extendRoute } from './extend.js';
import { forkRoute } from './fork.js';
import { registerInbox } from './inbox.js';
import { registerAnswerLink } from './links.js';
import { checkStoreOnlyOptions } from './options.js';
import { stopRoute } from './stop.js';
import { registerSweep } from './sweep.js';

/** What store mode adds to a handler: its backend and the registrars of its own routes. */
export interface StoreMode {
  backend: typeof storeBackend;
  registerSweep: typeof registerSweep;
  registerAnswerLink: typeof registerAnswerLink;
  stopRoute: typeof stopRoute;
  registerInbox: typeof registerInbox;
  forkRoute: typeof forkRoute;
  extendRoute: typeof extendRoute;
  checkOptions: typeof checkStoreOnlyOptions;
}

/** The store mode `createHandler` wires in. */
export const storeMode: StoreMode = {
  backend: storeBackend,
  registerSweep,
  registerAnswerLink,
  stopRoute,
  registerInbox,
  forkRoute,
  extendRoute,
  checkOptions: checkStoreOnlyOptions,
};
