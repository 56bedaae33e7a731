// A token bucket: `rate` tokens a second, at most `burst` saved up. One instance per connection,
// with the clock passed in, so that a test can drive it without waiting.

export class TokenBucket {
  #tokens: number;
  #last: number;

  constructor(
    private readonly rate: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {
    this.#tokens = burst;
    this.#last = now();
  }

  /** Takes one token if there is one. */
  take(): boolean {
    const now = this.now();
    const elapsed = Math.max(0, now - this.#last) / 1000;
    this.#last = now;
    this.#tokens = Math.min(this.burst, this.#tokens + elapsed * this.rate);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
