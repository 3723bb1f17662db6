import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, resolveWebhookTarget, WebhookUrlRefused } from '../../src/domain/webhooks/url-safety.js';

const strict = { allowHttp: true, allowPrivate: false };
const open = { allowHttp: true, allowPrivate: true };

const verdict = (url: string, safety: typeof strict): string => {
  try {
    checkWebhookUrl(url, safety);
    return 'accepted';
  } catch (error) {
    if (error instanceof WebhookUrlRefused) return 'refused';
    throw error;
  }
};

/** DESIGN §23: one address check that understands every IPv6 form embedding an IPv4 address. */
describe('webhook target addresses in every form', () => {
  // Every IPv6 form that carries a private or metadata IPv4 address.
  const embedded = [
    ['IPv4-compatible loopback', 'http://[::127.0.0.1]/'],
    ['IPv4-compatible metadata', 'http://[::a9fe:a9fe]/'],
    ['IPv4-compatible private', 'http://[::10.1.2.3]/'],
    ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/'],
    ['IPv4-translated (SIIT) loopback', 'http://[::ffff:0:7f00:1]/'],
    ['NAT64 private', 'http://[64:ff9b::10.1.2.3]/'],
    ['local-use NAT64 loopback', 'http://[64:ff9b:1::7f00:1]/'],
    ['6to4 of loopback', 'http://[2002:7f00:1::1]/'],
    ['Teredo whose server is private', 'http://[2001:0:a01:203::1]/'],
    ['ISATAP over a private address', 'http://[2001:db8::5efe:a01:203]/'],
  ] as const;

  it.each(embedded)('refuses %s unless private targets are allowed', (_, url) => {
    expect(verdict(url, strict)).toBe('refused');
  });

  const metadata = [
    '169.254.169.254',
    '169.254.170.2',
    '169.254.170.23',
    '100.100.100.200',
    '[fd00:ec2::254]',
    '[fd00:ec2::23]',
    '[::a9fe:a9fe]',
    '[::ffff:a9fe:a9fe]',
    '[64:ff9b::169.254.170.2]',
    '[2002:a9fe:a9fe::1]',
    '[2001:0:a9fe:a9fe::1]',
    '[2001:db8::5efe:6464:64c8]',
    '[2001:0:4136:e378:8000:63bf:5601:5601]', // Teredo whose client (its bits inverted) is 169.254.169.254
  ];

  it.each(metadata)('refuses the metadata address %s whatever WEBHOOK_ALLOW_PRIVATE says', (host) => {
    expect(verdict(`http://${host}/latest`, open)).toBe('refused');
    expect(verdict(`http://${host}/latest`, strict)).toBe('refused');
  });

  it('with private targets allowed, accepts private addresses in any form that are not metadata', () => {
    for (const url of ['http://10.1.2.3/', 'http://[::ffff:10.1.2.3]/', 'http://[::127.0.0.1]/', 'http://[fc00::1]/'])
      expect(verdict(url, open), url).toBe('accepted');
  });

  it('accepts public addresses, and an IPv4-mapped public one', () => {
    for (const url of ['https://93.184.215.14/', 'https://[2606:4700::1111]/', 'https://[::ffff:93.184.215.14]/'])
      expect(verdict(url, strict), url).toBe('accepted');
  });

  it('checks every address a name resolves to in the same way', async () => {
    await expect(
      resolveWebhookTarget('https://hooks.example.net/', open, async () => ['93.184.215.14', '::a9fe:a9fe']),
    ).rejects.toBeInstanceOf(WebhookUrlRefused);
    await expect(
      resolveWebhookTarget('https://hooks.example.net/', strict, async () => ['2002:a00:1::1']),
    ).rejects.toBeInstanceOf(WebhookUrlRefused);
  });
});
