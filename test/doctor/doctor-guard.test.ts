import { describe, expect, it } from 'vitest';
import { checkUrlGuard } from '../../src/doctor/network.js';

const check = (entry: string) =>
  checkUrlGuard({ allowPrivateHosts: [entry], port: 3000, nodeEnv: 'development' });

describe('doctor: the allow-list never opens the metadata endpoint, however it is spelled', () => {
  it.each([
    '169.254.169.254:80',
    '2852039166:80',
    '0xa9fea9fe:80',
    '[::ffff:a9fe:a9fe]:80',
    '[::ffff:169.254.169.254]:80',
    '[64:ff9b::a9fe:a9fe]:80',
    '169.254.170.2:80',
    'METADATA.google.internal:80',
  ])('fails for %s', async (entry) => {
    const finding = await check(entry);
    expect(finding.status).toBe('fail');
    expect(finding.detail).toContain(`CARDSHOT_ALLOW_PRIVATE_HOSTS opens ${entry}`);
  });

  it('passes for an ordinary development entry', async () => {
    const finding = await check('127.0.0.1:8080');
    expect(finding).toMatchObject({ status: 'ok' });
  });
});
