import { memoryStore } from '@turnkit/core';
import { describeStoreContract } from './store-contract.js';

describeStoreContract('memoryStore', async () => ({ store: memoryStore() }));
