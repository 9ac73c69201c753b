/**
 * ioredis's client class for the tests, on every ioredis 5: 5.0 exports `Redis` as a type only, while
 * the default export (`module.exports`) is the class in every 5.x. TypeScript types a default import of
 * this CommonJS module as the whole module, hence the cast to the class's own type.
 */

import type { Redis as RedisClass } from 'ioredis';
import * as ioredis from 'ioredis';

export const Redis = ioredis.default as unknown as typeof RedisClass;
export type Redis = RedisClass;
