/**
 * Each account's `jobs.concurrency`, as this node's item workers cap the account's queue group.
 *
 * The queue asks for a group's limit synchronously, inside its fetch. A node learns it when it
 * takes a submission or runs one of the account's items; a node that did neither (a worker that
 * never saw the job, which an api node accepted) used to answer 1 for good: the cap counts the
 * account's items running on EVERY node, so while another worker held one, this one took none,
 * and a job ran on one worker however many there were (seen with `npm run image:compose`).
 * So an unknown account is read from its plan in the background, and the workers are woken to
 * fetch again with the real limit; meanwhile 1 keeps the cap safe (never above the plan's).
 */
import type { Logger } from 'pino';

/** What a node assumes of an account whose plan it has not read yet. */
export const UNKNOWN_GROUP_LIMIT = 1;

export interface GroupLimits {
  /** The account's limit; 1 while it is being read. */
  get(accountId: string): number;
  /** The limit from a plan read elsewhere (a submission, an item's run). */
  note(accountId: string, limit: number): void;
}

export interface GroupLimitDeps {
  /** The account's jobs.concurrency from its plan; undefined when the account is gone. */
  read?(accountId: string): Promise<number | undefined>;
  /** A limit was learned: the workers fetch again (they were passing the account over). */
  onLearned?(): void;
  log?: Logger;
}

/** Limits noted or read, with at most one read in flight per account. */
export function createGroupLimits(deps: GroupLimitDeps = {}): GroupLimits {
  const limits = new Map<string, number>();
  const reading = new Set<string>();

  const learn = (accountId: string) => {
    if (!deps.read || reading.has(accountId)) return;
    reading.add(accountId);
    deps
      .read(accountId)
      .then(
        (limit) => {
          // A deleted account keeps the safe default: its items fail at once in the handler.
          if (!limits.has(accountId)) limits.set(accountId, limit ?? UNKNOWN_GROUP_LIMIT);
          deps.onLearned?.();
        },
        // The database is away: the next fetch asks again.
        (err: unknown) =>
          deps.log?.warn({ err, account: accountId }, "could not read an account's job concurrency"),
      )
      .finally(() => reading.delete(accountId));
  };

  return {
    get(accountId) {
      const known = limits.get(accountId);
      if (known !== undefined) return known;
      learn(accountId);
      return UNKNOWN_GROUP_LIMIT;
    },
    note(accountId, limit) {
      limits.set(accountId, limit);
    },
  };
}
