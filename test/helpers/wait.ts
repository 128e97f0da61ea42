/** Resolves once `cond()` holds, polling every 20 ms; throws after `ms`. */
export async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The value of `p` and how long it took, in ms. */
export async function timed<T>(p: Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await p;
  return { value, ms: performance.now() - start };
}
