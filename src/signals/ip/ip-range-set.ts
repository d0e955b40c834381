// A set of IPv4 and IPv6 address ranges, merged and packed into sorted typed arrays, so that a
// membership test is one binary search per family and never a scan of the CIDRs it came from.

// Inclusive bounds. bigint because an IPv6 address does not fit a double; only building uses it.
export type IpRange = { family: 4 | 6; first: bigint; last: bigint };

// What a lookup searches for: an IPv4 address as an unsigned 32-bit number, an IPv6 address as
// four unsigned 32-bit words, most significant first. Plain numbers keep the search free of bigint.
export type IpKey = { family: 4; value: number } | { family: 6; words: readonly [number, number, number, number] };

const WORD = 0xffffffffn;

export class IpRangeSet {
  static readonly empty = new IpRangeSet(new Uint32Array(0), new Uint32Array(0), new Uint32Array(0), new Uint32Array(0));

  // Overlapping and adjacent ranges are merged first, so the packed ranges are disjoint and sorted:
  // the only range that can hold a key is the last one starting at or below it.
  static build(ranges: Iterable<IpRange>): IpRangeSet {
    const v4: IpRange[] = [];
    const v6: IpRange[] = [];
    for (const range of ranges) (range.family === 4 ? v4 : v6).push(range);
    const m4 = mergeRanges(v4);
    const m6 = mergeRanges(v6);
    const v4First = new Uint32Array(m4.length);
    const v4Last = new Uint32Array(m4.length);
    m4.forEach((r, i) => {
      v4First[i] = Number(r.first);
      v4Last[i] = Number(r.last);
    });
    const v6First = new Uint32Array(m6.length * 4);
    const v6Last = new Uint32Array(m6.length * 4);
    m6.forEach((r, i) => {
      for (let w = 0; w < 4; w++) {
        const shift = BigInt(96 - 32 * w);
        v6First[i * 4 + w] = Number((r.first >> shift) & WORD);
        v6Last[i * 4 + w] = Number((r.last >> shift) & WORD);
      }
    });
    return new IpRangeSet(v4First, v4Last, v6First, v6Last);
  }

  private constructor(
    private readonly v4First: Uint32Array,
    private readonly v4Last: Uint32Array,
    private readonly v6First: Uint32Array,
    private readonly v6Last: Uint32Array,
  ) {}

  // The number of disjoint ranges left after merging.
  get size(): number {
    return this.v4First.length + this.v6First.length / 4;
  }

  has(key: IpKey): boolean {
    return key.family === 4 ? this.has4(key.value) : this.has6(key.words);
  }

  private has4(value: number): boolean {
    const firsts = this.v4First;
    let lo = 0;
    let hi = firsts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((firsts[mid] as number) <= value) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found >= 0 && value <= (this.v4Last[found] as number);
  }

  private has6(words: readonly [number, number, number, number]): boolean {
    let lo = 0;
    let hi = this.v6First.length / 4 - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compareWords(this.v6First, mid, words) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found >= 0 && compareWords(this.v6Last, found, words) >= 0;
  }
}

// Compares the packed address at `index` with `words`: negative, zero or positive.
function compareWords(packed: Uint32Array, index: number, words: readonly number[]): number {
  for (let w = 0; w < 4; w++) {
    const diff = (packed[index * 4 + w] as number) - (words[w] as number);
    if (diff !== 0) return diff;
  }
  return 0;
}

function mergeRanges(ranges: IpRange[]): IpRange[] {
  ranges.sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  const merged: IpRange[] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last && range.first <= last.last + 1n) {
      if (range.last > last.last) last.last = range.last;
    } else {
      merged.push({ ...range });
    }
  }
  return merged;
}
