/** A FIFO whose shift is amortised O(1): the journal's entries, the webhook dispatcher's keys and their items. */
export class Queue<T> {
  private items: T[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(item: T): void {
    this.items.push(item);
  }
  peek(): T | undefined {
    return this.items[this.head];
  }
  shift(): T | undefined {
    const item = this.items[this.head];
    if (item === undefined) return undefined;
    this.items[this.head++] = undefined as T;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
  retain(keep: (item: T) => boolean): void {
    this.items = this.items.slice(this.head).filter(keep);
    this.head = 0;
  }
  toArray(): T[] {
    return this.items.slice(this.head);
  }
  forEach(fn: (item: T) => void): void {
    for (let i = this.head; i < this.items.length; i++) fn(this.items[i] as T);
  }
}
