// A map that remembers only its most recent entries: what a stream reader keeps about the
// ids a hostile stream may name without end stays bounded, and the oldest is forgotten first.

export class RecentMap<K, V> {
  /** A Map keeps insertion order: the first key is the least recently set. */
  private readonly entries = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Sets `key` as the most recent entry, forgetting the oldest past the bound. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  /** Forgets `key`; true when it was there. */
  delete(key: K): boolean {
    return this.entries.delete(key);
  }
}
