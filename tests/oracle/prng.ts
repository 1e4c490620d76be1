/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) for reproducible test cases: the
 * generator of case `index` under `seed` depends on nothing else, so one case can be replayed
 * on its own.
 *
 * @module
 */

function splitmix32(state: number): () => number {
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** sfc32: fast, 128-bit state, good statistical quality for test generation. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream = 0) {
    const mix = splitmix32((seed ^ Math.imul(stream, 0x27d4eb2f)) >>> 0);
    const mix2 = splitmix32((stream + 0x6a09e667) >>> 0);
    this.a = mix() ^ mix2();
    this.b = mix();
    this.c = mix() ^ mix2();
    this.d = mix();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    let { a, b, c, d } = this;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    this.a = a, this.b = b, this.c = c, this.d = d;
    return t >>> 0;
  }

  /** A uniform float in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** A uniform integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** A uniformly chosen element. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** An element chosen by weight: `[[weight, item], ...]`. */
  weighted<T>(items: readonly (readonly [number, T])[]): T {
    let total = 0;
    for (const [w] of items) total += w;
    let r = this.float() * total;
    for (const [w, item] of items) {
      if ((r -= w) < 0) return item;
    }
    return items[items.length - 1][1];
  }
}
