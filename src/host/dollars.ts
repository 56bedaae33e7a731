// An amount of US dollars as warden shows it, in events, lists and refusals alike.

/** Dollars as Claude Code reports them: small amounts need four places. */
export function dollars(amount: number): string {
  return `$${amount < 1 ? amount.toFixed(4) : amount.toFixed(2)}`;
}
