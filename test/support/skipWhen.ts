// The skip option for a test that needs something a machine may lack (bubblewrap, cgroups,
// curl). In CI (CI=true) nothing is skipped: CI runs where everything the suite needs is
// installed, so a missing piece must fail the test that needs it instead of passing unseen.

declare const skipWhenBrand: unique symbol;

/**
 * A reason to skip that went through skipWhen, or false. Only skipWhen makes one, so a skip
 * option of this type cannot bypass CI's rule; the suite's honesty check relies on the brand.
 */
export type SkipReason = (string & { readonly [skipWhenBrand]: true }) | false;

export function skipWhen(reason: string | false | undefined): SkipReason {
  if (reason === false || reason === undefined) return false;
  if (process.env.CI === "true") {
    process.stderr.write(`CI=true: running what would skip here (${reason}); it must not\n`);
    return false;
  }
  // The one place a plain string becomes a SkipReason.
  return reason as SkipReason;
}
