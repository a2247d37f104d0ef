/** A cache bounded at no cost per read: a Map that forgets everything once it holds `limit` entries. */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  /** Keeps the value (after forgetting all, when full) and returns it. */
  remember(key: K, value: V): V {
    if (this.size >= this.limit) this.clear();
    this.set(key, value);
    return value;
  }
}
