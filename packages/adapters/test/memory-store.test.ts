import { memoryStore } from '@turnkit/core';
import { describeStoreContract, fakeClock } from './store-contract.js';

describeStoreContract('memoryStore', async () => {
  const clock = fakeClock();
  return { store: memoryStore({ now: clock.now }), clock };
});
