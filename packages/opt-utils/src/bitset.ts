/** A fixed-size set of small integers (register ids) packed in 32-bit words. */
export class BitSet {
  readonly words: Uint32Array;

  constructor(readonly size: number) {
    this.words = new Uint32Array((size + 31) >>> 5);
  }
  has(i: number): boolean {
    return (this.words[i >>> 5]! & (1 << (i & 31))) !== 0;
  }
  add(i: number): void {
    this.words[i >>> 5]! |= 1 << (i & 31);
  }
  delete(i: number): void {
    this.words[i >>> 5]! &= ~(1 << (i & 31));
  }
  clone(): BitSet {
    const b = new BitSet(this.size);
    b.words.set(this.words);
    return b;
  }
  /** this |= other; returns whether this changed. */
  unionWith(other: BitSet): boolean {
    let changed = false;
    for (let k = 0; k < this.words.length; k++) {
      const v = (this.words[k]! | other.words[k]!) >>> 0;
      if (v !== this.words[k]) {
        this.words[k] = v;
        changed = true;
      }
    }
    return changed;
  }
  /** this = use | (out & ~kill); returns whether this changed. */
  assignTransfer(use: BitSet, out: BitSet, kill: BitSet): boolean {
    let changed = false;
    for (let k = 0; k < this.words.length; k++) {
      const v = (use.words[k]! | (out.words[k]! & ~kill.words[k]!)) >>> 0;
      if (v !== this.words[k]) {
        this.words[k] = v;
        changed = true;
      }
    }
    return changed;
  }
  equals(other: BitSet): boolean {
    for (let k = 0; k < this.words.length; k++) if (this.words[k] !== other.words[k]) return false;
    return true;
  }
  *[Symbol.iterator](): IterableIterator<number> {
    for (let k = 0; k < this.words.length; k++) {
      let w = this.words[k]!;
      while (w) {
        const t = w & -w;
        yield (k << 5) + (31 - Math.clz32(t));
        w ^= t;
      }
    }
  }
}
