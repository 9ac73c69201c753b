/**
 * The got adapter's own options (`politeGot`'s second argument): `spacing`, declared once in core and
 * validated here once, when `politeGot` is called.
 */
import { checkOptions, type OptionTable, SPACING_OPTION, type SpacingOptions } from '@politely/core/adapter';

export type { Spacing } from '@politely/core/adapter';

export interface GotPacingOptions extends SpacingOptions {}

const PACING_OPTIONS = {
  spacing: SPACING_OPTION,
} as const satisfies OptionTable<GotPacingOptions>;

export function resolvePacingOptions(options: GotPacingOptions) {
  return checkOptions('politeGot pacing', PACING_OPTIONS, options);
}
