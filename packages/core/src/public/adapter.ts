/**
 * `@politely/core/adapter`: what an adapter author needs beyond the crawler-facing Politeness. The
 * adapter kit of a Politeness (`adapterKit(politeness)`: the send pass, the one way an adapter takes a
 * slot, and the non-blocking slot, cached checks, host keys, skip reporting, ...), one hop sent on it
 * (`sendHop`), one hop's lifecycle for an adapter that sees its own client's events (`openHop`: sent,
 * answered, done, with `spacing` applied), the `spacing` option every such adapter takes, the redirect rule adapters apply per hop, the option-table checks every adapter's own
 * options go through, the one verdict on a response (`responseVerdict`: Content-Usage, TDMRep), the
 * error for a page whose robots.txt failed at the transport (`robotsTransportError`), and the few rules adapters share (which URLs robots.txt speaks for, which
 * failures are the server's trouble, the pacing margin a reported send drops). `attachPoliteness`
 * puts the Politeness behind what an adapter returns where the root's `politenessOf` finds it,
 * `isPoliteness` tells a Politeness handed in from options, and `emptyStats` gives the counters of
 * a Politeness that has done nothing (for an adapter's test double). `PACE_KEY_PREFIX` starts the store
 * key of every host pace record, for a store that keeps those apart (the Crawlee plugin's keeps them
 * in one record); `ROBOTS_KEY_PREFIX` (then the origin) that of each robots.txt record, for a store
 * that says where a crawl's robots.txt came from.
 */
export { type Hop, openHop } from '../adapter/hop.js';
export { ADAPTER_KIT, type AdapterKit, adapterKit, type CheckCachedOptions } from '../adapter/kit.js';
export { attachPoliteness } from '../adapter/owner.js';
export {
  type ResponseHeadersLike,
  type ResponseToJudge,
  responseVerdict,
} from '../adapter/response-verdict.js';
export {
  type HopAnswer,
  type HopBody,
  type HopPoliteness,
  type SendHopOptions,
  sendHop,
} from '../adapter/send-hop.js';
export type { SendPass, SendPassOptions } from '../adapter/send-pass.js';
export { SPACING_OPTION, type Spacing, type SpacingOptions } from '../adapter/spacing.js';
export { type RobotsTransportError, robotsTransportError } from '../adapter/transport-error.js';
export { PACE_KEY_PREFIX } from '../cache/persisted-pace.js';
export { STORE_KEY_PREFIX as ROBOTS_KEY_PREFIX } from '../cache/stored-record.js';
export { isPoliteness } from '../facade/politeness.js';
export { emptyStats } from '../facade/stats.js';
export { isHttpUrl } from '../kernel/http-url.js';
export {
  booleanOption,
  checkOptions,
  functionOption,
  methodsOption,
  numberOption,
  type OptionSpec,
  type OptionTable,
  oneOf,
  option,
  type ResolvedOf,
} from '../kernel/option-table.js';
export { isRedirectStatus, type RedirectChange, redirectChange } from '../kernel/redirect-rule.js';
export { withoutSafetyMargin } from '../kernel/safety-margin.js';
export type { TdmDeclaration } from '../kernel/tdm-reservation.js';
export type { TryReservation } from '../schedule/types.js';
export { isServerTroubleError } from '../signals/host-signal.js';
export type { ResponseHeaders } from '../signals/rate-limit-headers.js';
