import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkPasswordPolicy, hashPassword, verifyPassword } from '../../src/auth/passwords.js';
import { isAppError } from '../../src/errors.js';

describe('passwords', () => {
  it('hashes with scrypt and a per-password salt, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('treats canonically equal Unicode passwords as equal (NFKC)', async () => {
    const h = await hashPassword('caf\u00e9 au lait!');
    expect(await verifyPassword('cafe\u0301 au lait!', h)).toBe(true);
  });

  it('never matches a malformed or tampered hash', async () => {
    const h = await hashPassword('correct horse battery');
    for (const bad of ['', 'plain', h.replace('ln=15', 'ln=40'), h.replace('scrypt', 'bcrypt'), `${h}x`]) {
      expect(await verifyPassword('correct horse battery', bad)).toBe(false);
    }
  });

  // Regression: a hash with characters appended decoded to more than 32 bytes, and scrypt's
  // longer output starts with the same 32 bytes, so the right extra byte made it match (one
  // random character in 256 did). Here the extra byte is the real one, every time.
  it('refuses a stored hash longer than the key it was made with', async () => {
    const password = 'correct horse battery';
    const h = await hashPassword(password);
    const [, , params, salt] = h.split('$') as [string, string, string, string, string];
    const ln = Number(/ln=(\d+)/.exec(params)![1]);
    const N = 2 ** ln;
    const longer = scryptSync(password, Buffer.from(salt, 'base64'), 33, {
      N,
      r: 8,
      p: 1,
      maxmem: 256 * N * 8 + 2 ** 20,
    });
    const forged = `$scrypt$${params}$${salt}$${longer.toString('base64').replace(/=+$/, '')}`;
    expect(await verifyPassword(password, forged)).toBe(false);
  });

  it('enforces a length policy and refuses the email as password', () => {
    const msg = (p: string, email?: string) => {
      try {
        checkPasswordPolicy(p, email);
        return 'ok';
      } catch (err) {
        return isAppError(err, 'bad_request') ? err.message : 'other';
      }
    };
    expect(msg('short')).toBe('Password must be at least 10 characters');
    expect(msg('x'.repeat(201))).toBe('Password must be at most 200 characters');
    expect(msg('Ops@Acme.test', 'ops@acme.test')).toBe('Password must not be your email address');
    expect(msg('a fine passphrase')).toBe('ok');
  });
});
