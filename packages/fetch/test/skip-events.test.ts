import { describeSkipEvents } from '../../../test/helpers/skip-events.js';
import { politenessOf } from '../src/index.js';
import { host, polite } from './setup.js';

describeSkipEvents({
  host,
  client(onEvent) {
    const fetch = polite(onEvent ? { onEvent } : {});
    return { request: (url) => fetch(url), politeness: politenessOf(fetch) };
  },
});
