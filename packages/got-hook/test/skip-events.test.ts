import got from 'got';
import { describeSkipEvents } from '../../../test/helpers/skip-events.js';
import { politenessOf } from '../src/index.js';
import { host, politeOptions } from './setup.js';

describeSkipEvents({
  host,
  client(onEvent) {
    const options = politeOptions(onEvent ? { onEvent } : {});
    return {
      request: (url) => got.extend(options, { retry: { limit: 0 }, throwHttpErrors: false })(url),
      politeness: politenessOf(options),
    };
  },
});
