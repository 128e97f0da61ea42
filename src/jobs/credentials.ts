/**
 * A screenshot item's credentials (issue 29 §2: "Job items may carry them, stored encrypted with
 * the server secret and deleted with the job"). Sealed with AES-GCM under a key derived from the
 * server secret and bound to the item (its job id and index as authenticated data), so a sealed
 * value copied onto another item, or another job, does not open. Only the worker that runs the
 * item opens them, right before the capture; nothing else (the items API, events, the zip, logs)
 * ever reads the column.
 */
import type { ServerSecrets } from '../auth/secret.js';
import { AppError } from '../errors.js';
import type { ShotCredentials } from '../render/screenshot/credentials.js';

/** Seals and opens item credentials. */
export interface ItemCredentials {
  seal(jobId: string, index: number, credentials: ShotCredentials): string;
  /** The credentials of `seal`; a clear AppError (the item's failure) when they cannot be opened. */
  open(jobId: string, index: number, sealed: string): ShotCredentials;
}

const context = (jobId: string, index: number) => `cardshot/job-item-credentials/${jobId}/${index}`;

/** Item credentials under the server secret's sealing key. */
export function createItemCredentials(secrets: Pick<ServerSecrets, 'seal' | 'unseal'>): ItemCredentials {
  return {
    seal: (jobId, index, credentials) => secrets.seal(JSON.stringify(credentials), context(jobId, index)),
    open(jobId, index, sealed) {
      try {
        return JSON.parse(secrets.unseal(sealed, context(jobId, index))) as ShotCredentials;
      } catch (err) {
        // Only a different server secret (or a tampered row) gets here: say so, never the value.
        throw new AppError(
          'bad_request',
          "the item's credentials cannot be opened: the server secret changed since the job was submitted",
          { detail: `job ${jobId} item ${index}`, cause: err },
        );
      }
    },
  };
}
