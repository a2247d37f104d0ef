/** A binary min-heap of (instant, item): the earliest instant on top. The memory store keeps one per tenant. */
export type ExpiryHeap<T> = ReturnType<typeof createExpiryHeap<T>>;

export function createExpiryHeap<T>() {
  // Parallel arrays: fewer objects for the garbage collector than one {at, item} per entry.
  let ats: number[] = [];
  let items: T[] = [];

  function swap(i: number, j: number): void {
    [ats[i], ats[j]] = [ats[j]!, ats[i]!];
    [items[i], items[j]] = [items[j]!, items[i]!];
  }

  function up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (ats[parent]! <= ats[i]!) return;
      swap(i, parent);
      i = parent;
    }
  }

  function down(i: number): void {
    const n = ats.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < n && ats[left]! < ats[least]!) least = left;
      if (right < n && ats[right]! < ats[least]!) least = right;
      if (least === i) return;
      swap(i, least);
      i = least;
    }
  }

  return {
    push(at: number, item: T): void {
      ats.push(at);
      items.push(item);
      up(ats.length - 1);
    },
    peekAt: (): number | undefined => ats[0],
    pop(): T | undefined {
      if (ats.length === 0) return undefined;
      const top = items[0];
      const lastAt = ats.pop()!;
      const lastItem = items.pop()!;
      if (ats.length > 0) {
        ats[0] = lastAt;
        items[0] = lastItem;
        down(0);
      }
      return top;
    },
    get size(): number {
      return ats.length;
    },
    /** Replaces the contents at once (O(n)). */
    rebuild(entries: readonly (readonly [number, T])[]): void {
      ats = entries.map(([at]) => at);
      items = entries.map(([, item]) => item);
      for (let i = (ats.length >> 1) - 1; i >= 0; i--) down(i);
    },
  };
}
