import { describe, expect, it } from 'vitest';
import { createGroupLimits, UNKNOWN_GROUP_LIMIT } from '../../src/jobs/group-limits.js';

// A worker that never saw an account's submission must learn its plan's jobs.concurrency, or
// it caps the account at 1 across every node and takes none of its items while another worker
// holds one (found by npm run image:compose: a 60-item job ran on one worker of two).
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('group limits', () => {
  it("answers 1 for an unknown account, reads its plan once, then answers the plan's limit and wakes the workers", async () => {
    const reads: string[] = [];
    let woken = 0;
    const limits = createGroupLimits({
      read: async (id) => {
        reads.push(id);
        return 8;
      },
      onLearned: () => woken++,
    });
    expect(limits.get('acc_a')).toBe(UNKNOWN_GROUP_LIMIT);
    expect(limits.get('acc_a')).toBe(UNKNOWN_GROUP_LIMIT);
    expect(reads).toEqual(['acc_a']);
    await settle();
    expect(limits.get('acc_a')).toBe(8);
    expect(woken).toBe(1);
    expect(reads).toEqual(['acc_a']);
  });

  it('a limit noted meanwhile (a submission, an item run) wins over the background read', async () => {
    let answer: (n: number) => void = () => {};
    const limits = createGroupLimits({ read: () => new Promise<number>((r) => (answer = r)) });
    limits.get('acc_a');
    limits.note('acc_a', 3);
    answer(8);
    await settle();
    expect(limits.get('acc_a')).toBe(3);
  });

  it('a deleted account stays at 1 without being read again; a failed read is tried again', async () => {
    const reads: string[] = [];
    let fail = true;
    const limits = createGroupLimits({
      read: async (id) => {
        reads.push(id);
        if (id === 'acc_gone') return undefined;
        if (fail) throw new Error('database away');
        return 4;
      },
    });
    limits.get('acc_gone');
    limits.get('acc_b');
    await settle();
    await settle();
    expect(limits.get('acc_gone')).toBe(1);
    fail = false;
    // This ask, after the failed read, reads again.
    expect(limits.get('acc_b')).toBe(1);
    await settle();
    expect(limits.get('acc_b')).toBe(4);
    expect(reads).toEqual(['acc_gone', 'acc_b', 'acc_b']);
  });

  it('without a reader (a node that only notes), unknown accounts stay at 1', () => {
    const limits = createGroupLimits();
    expect(limits.get('acc_a')).toBe(1);
    limits.note('acc_a', 5);
    expect(limits.get('acc_a')).toBe(5);
  });
});
