import { describe, expect, it } from 'vitest';
import { deriveSecrets } from '../../src/auth/secret.js';

const A = deriveSecrets('a'.repeat(40));
const B = deriveSecrets('b'.repeat(40));

describe('sealed secrets (webhook signing secrets at rest)', () => {
  it('opens under the same server secret and context, and never shows the plaintext', () => {
    const sealed = A.seal('whsec_c2VjcmV0', 'webhook-secret:ep_1');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('c2VjcmV0');
    expect(A.unseal(sealed, 'webhook-secret:ep_1')).toBe('whsec_c2VjcmV0');
    // A fresh nonce each time: the same secret sealed twice looks different.
    expect(A.seal('whsec_c2VjcmV0', 'webhook-secret:ep_1')).not.toBe(sealed);
  });

  it('refuses another server secret, another row, and a tampered value', () => {
    const sealed = A.seal('whsec_c2VjcmV0', 'webhook-secret:ep_1');
    expect(() => B.unseal(sealed, 'webhook-secret:ep_1')).toThrow();
    expect(() => A.unseal(sealed, 'webhook-secret:ep_2')).toThrow();
    const parts = sealed.split('.');
    const body = Buffer.from(parts[2]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[2] = body.toString('base64url');
    expect(() => A.unseal(parts.join('.'), 'webhook-secret:ep_1')).toThrow();
    expect(() => A.unseal('v2.x.y.z', 'webhook-secret:ep_1')).toThrow('not a sealed value of this version');
  });
});
