import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkPasswordPolicy,
  decoyHash,
  hashPassword,
  MIN_LN,
  verifyPassword,
} from '../../src/auth/passwords.js';
import { isAppError } from '../../src/errors.js';
import { createModules } from '../../src/modules.js';
import { loadConfig } from '../../src/settings.js';
import { startTestApp } from '../helpers/app.js';
import { PASSWORD } from '../helpers/dashboard.js';
import { capturedLogger } from '../helpers/logs.js';

// The cost is checked at 2^15 where it matters (the first test and the last); the others check
// what does not depend on it at 2^10, the cheapest cost verifyPassword accepts.
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
    const h = await hashPassword('caf\u00e9 au lait!', MIN_LN);
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
    const h = await hashPassword(password, MIN_LN);
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

  const msg = (p: string, email?: string) => {
    try {
      checkPasswordPolicy(p, email);
      return 'ok';
    } catch (err) {
      return isAppError(err, 'bad_request') ? err.message : 'other';
    }
  };

  it('enforces a length policy and refuses the email as password', () => {
    expect(msg('short')).toBe('Password must be at least 10 characters');
    expect(msg('x'.repeat(201))).toBe('Password must be at most 200 characters');
    expect(msg('Ops@Acme.test', 'ops@acme.test')).toBe('Password must not be your email address');
    expect(msg('a fine passphrase')).toBe('ok');
  });

  // Issue 20 §5: guessable passwords are refused by zxcvbn-ts and its common-password lists.
  it('refuses common and guessable passwords, saying why', () => {
    expect(msg('password1234')).toBe(
      'Password is too easy to guess: it is close to a common password. Use a few unrelated words, or more characters',
    );
    expect(msg('qwertyuiop123')).toMatch(/^Password is too easy to guess: /);
    expect(msg('aaaaaaaaaaaa')).toBe(
      'Password is too easy to guess: it repeats characters. Use a few unrelated words, or more characters',
    );
    expect(msg('ops@acme.test123', 'ops@acme.test')).toMatch(/^Password is too easy to guess: /);
    expect(msg('1234567890')).toMatch(/^Password is too easy to guess: /);
    expect(msg('correct horse battery staple')).toBe('ok');
  });

  // Regression: ten spaces (or tabs, or zero-width spaces) were accepted as a password.
  it('refuses a password that is only spaces or invisible characters', () => {
    for (const blank of [
      ' '.repeat(10),
      '\t'.repeat(12),
      '\u3000'.repeat(10),
      '\u200b'.repeat(10),
      ' \u00a0\ufeff'.repeat(4),
    ]) {
      expect(msg(blank)).toBe('Password must not be only spaces');
    }
    expect(msg(`${' '.repeat(9)}x`)).not.toBe('Password must not be only spaces');
    expect(msg(`${' '.repeat(9)}copper kettle 19`)).toBe('ok');
  });

  // Regression: length was counted in code points before NFKC, so five `e` + U+0301 (five `é`
  // once normalised, which is what gets hashed) passed for ten characters.
  it('counts characters as they are hashed and seen: after NFKC, one per grapheme', () => {
    expect(msg('e\u0301'.repeat(5))).toBe('Password must be at least 10 characters');
    expect(msg('x\u0301'.repeat(5))).toBe('Password must be at least 10 characters');
    expect(msg('\u{1F468}\u200d\u{1F469}\u200d\u{1F467}'.repeat(3))).toBe(
      'Password must be at least 10 characters',
    );
    // Long enough (repeats are then refused as guessable, which is another rule).
    expect(msg('e\u0301'.repeat(10))).toMatch(/^Password is too easy to guess/);
    expect(msg('\u{1F468}\u200d\u{1F469}\u200d\u{1F467}'.repeat(10))).toBe('ok');
    expect(msg('caf\u0065\u0301 m\u0065\u0301tro 7')).toBe('ok');
    // The upper bound is on code points after NFKC: 200 decomposed `é` are 200, not 400.
    expect(msg(`${'e\u0301'.repeat(186)} Tr0ub4dor&3x`)).toBe('ok');
    expect(msg('e\u0301'.repeat(201))).toBe('Password must be at most 200 characters');
    // NFKC can also lengthen: U+FDFA alone is 18 code points.
    expect(msg('\ufdfa'.repeat(12))).toBe('Password must be at most 200 characters');
  });

  // Regression: the comparison with the email was made before normalisation, so a full-width
  // spelling of the email (which hashes exactly like the email itself) was accepted.
  it('refuses the email in any spelling that NFKC and case folding make equal', () => {
    const email = 'ops@acme.test';
    const fullWidth = [...email].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join('');
    expect(fullWidth).toBe('\uff4f\uff50\uff53\uff20\uff41\uff43\uff4d\uff45\uff0e\uff54\uff45\uff53\uff54');
    expect(msg(fullWidth, email)).toBe('Password must not be your email address');
    expect(msg(fullWidth.toUpperCase(), email)).toBe('Password must not be your email address');
    expect(msg('ops@acme\u200b.test', email)).toBe('Password must not be your email address');
    expect(msg('STRASSE@acme.test', 'straße@acme.test')).toBe('Password must not be your email address');
    expect(msg('ops@acme.tests', email)).not.toBe('Password must not be your email address');
  });

  // The policy measures the NFKC form, so verification must not refuse the same password
  // typed decomposed (macOS input methods can send NFD): 151 characters, 301 code points.
  it('verifies a password the policy accepts whatever normalisation form it is typed in', async () => {
    const password = `${'\u00e9'.repeat(150)} Tr0ub4dor&3`;
    expect(msg(password)).toBe('ok');
    const h = await hashPassword(password, MIN_LN);
    expect(await verifyPassword(password.normalize('NFD'), h)).toBe(true);
    expect(await verifyPassword('x'.repeat(801), h)).toBe(false);
  });

  // Hashes have always been made from the NFKC form, so nothing changes for stored ones: a
  // password accepted when length was counted as typed (15 code points, 219 after NFKC) still signs in.
  it('still verifies passwords accepted under the old counting', async () => {
    const password = `${'\ufdfa'.repeat(12)}abc`;
    const h = await hashPassword(password, MIN_LN);
    expect(await verifyPassword(password, h)).toBe(true);
  });

  // Test apps hash at 2^10 to start fast (helpers/app.ts); the service never does.
  it('are hashed at 2^15 by the service; a cheaper cost is for tests only, and never below 2^10', async () => {
    const t = await startTestApp({}, { fullPasswordCost: true });
    try {
      await t.modules.accounts.credentials.setPassword(t.account.email, PASSWORD);
      expect(await t.store.getPassword(t.account.id)).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);
      expect(await decoyHash()).toMatch(/^\$scrypt\$ln=15,/);
    } finally {
      await t.close();
    }
    for (const nodeEnv of ['production', 'development']) {
      const config = loadConfig({ dataDir: '/nonexistent/cardshot', nodeEnv }, {});
      await expect(createModules(config, capturedLogger().log, { passwordCost: 10 })).rejects.toThrow(
        'passwordCost is for tests (NODE_ENV=test): the service hashes passwords at full cost',
      );
    }
    await expect(hashPassword('correct horse battery', 9)).rejects.toThrow(RangeError);
    const cheap = await hashPassword('correct horse battery', 10);
    expect(cheap).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$/);
    expect(await verifyPassword('correct horse battery', cheap)).toBe(true);
  });
});
