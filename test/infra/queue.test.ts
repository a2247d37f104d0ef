import { describe, expect, it } from '@jest/globals';
import { Queue } from '../../src/infra/queue.js';

describe('Queue', () => {
  it('gives items back first in, first out, and peeks at the head without taking it', () => {
    const q = new Queue<number>();
    for (let i = 1; i <= 3; i++) q.push(i);
    expect(q.peek()).toBe(1);
    expect(q.shift()).toBe(1);
    expect(q.length).toBe(2);
    expect(q.toArray()).toEqual([2, 3]);
    expect([q.shift(), q.shift(), q.shift(), q.peek()]).toEqual([2, 3, undefined, undefined]);
    expect(q.length).toBe(0);
  });

  it('keeps its order across compaction (past 1,024 shifted items)', () => {
    const q = new Queue<number>();
    for (let i = 0; i < 3000; i++) q.push(i);
    for (let i = 0; i < 2000; i++) expect(q.shift()).toBe(i);
    q.push(3000);
    expect(q.length).toBe(1001);
    const seen: number[] = [];
    q.forEach((n) => seen.push(n));
    expect(seen[0]).toBe(2000);
    expect(seen.at(-1)).toBe(3000);
  });

  it('retains only the items that pass, in order, after some were shifted', () => {
    const q = new Queue<number>();
    for (let i = 0; i < 10; i++) q.push(i);
    q.shift();
    q.retain((n) => n % 3 === 0);
    expect(q.toArray()).toEqual([3, 6, 9]);
    expect(q.shift()).toBe(3);
  });
});
