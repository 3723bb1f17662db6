/**
 * The person approves the machine (DESIGN §14), in headless Chromium with the real shell client
 * (clients/shell/activate.sh): the person ticks "Ask me before a machine can use this code", the installer
 * prechecks and waits, the page shows the machine, the person approves (the install completes) or denies
 * (the client exits with the denial code, the code is revoked). Screenshots of every stage at 1280 and
 * 390 px go to SLOWDNS_SCREENS_DIR (npm run screens), named approval-<stage>-<width>.png.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { createClient, SlowdnsApiError, type SlowdnsClient } from '../../clients/typescript/src/index.js';
import { installCodes } from '../../src/db/schema.js';
import {
  describeWithBrowser,
  expectAccessible,
  openBrowser,
  checkWidths,
  serveOverHttp,
  soon,
  type BrowserSession,
  type HttpServer,
} from '../support/browser.js';
import { INSTALLER_VERSION, otherMachine, randomMachine } from '../support/install-flow.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CODE_SHAPE = /^SDNS-SD-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}-[0-9A-HJKMNP-TV-Z]{6}$/;
/** The waiting client asks again after 1 s (SLOWDNS_MAX_WAIT_SECONDS), not the service's Retry-After (5 s). */
const CLIENT_SECONDS = { timeout: 20_000, interval: 250 };
const FLOW_MS = 180_000;
/** The shell client's exit code when the person denied the machine (its README's exit-code table). */
const DENIED_EXIT = 16;

interface Installer {
  machineIdShort: string;
  fingerprint: string;
  output(): string;
  exited: Promise<number | null>;
  /** Lets the install command end (successfully). */
  finish(): Promise<void>;
  /** Holds the client (SIGSTOP to its process group) and lets it go on (SIGCONT): a stage can be seen before it moves. */
  hold(): void;
  release(): void;
  stop(): void;
}

describeWithBrowser('the person approves the machine, in headless Chromium, with the real shell client', () => {
  let t: TestApp | undefined;
  let server: HttpServer | undefined;
  let browser: BrowserSession | undefined;
  let client: SlowdnsClient;
  let work = '';
  /** The service's clock follows real time here: the client's waits (Retry-After) are real seconds. */
  let ticker: ReturnType<typeof setInterval> | undefined;
  const installers: Installer[] = [];

  const origin = () => server!.origin;
  const page = () => browser!.page;
  const watchState = () => page().locator('#watch-state');
  const codeText = () => page().locator('#install-code');
  const entries = () => page().locator('#approval-list > li');
  const focused = () =>
    page().evaluate(() => document.activeElement?.textContent?.trim() ?? document.activeElement?.id);

  beforeAll(async () => {
    server = await serveOverHttp(async (o) => (t = await createTestApp({ PUBLIC_BASE_URL: o })).app);
    // The page polls every 1 to 5 s: soon() moves its clock on instead of waiting for it.
    browser = await openBrowser(server.origin, { clock: true });
    client = createClient({ baseUrl: server.origin });
    work = await mkdtemp(join(tmpdir(), 'slowdns-approval-'));
  });
  beforeEach(async () => {
    await t!.reset();
    await browser!.reset({ width: 1280, height: 900 });
    ticker = setInterval(() => t!.clock.advance(0.25), 250);
  });
  afterEach(() => {
    clearInterval(ticker);
    for (const installer of installers.splice(0)) installer.stop();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await t?.close();
    await rm(work, { recursive: true, force: true });
  });

  /**
   * The shell client on a machine of its own: `activate.sh run -- <install command>` with this code. The
   * install command waits until the test calls `finish()`, so that the page can be seen while it runs.
   */
  async function startInstaller(code: string): Promise<Installer> {
    const dir = await mkdtemp(join(work, 'machine-'));
    const machineId = randomBytes(16).toString('hex');
    await writeFile(join(dir, 'machine-id'), `${machineId}\n`);
    const key = join(dir, 'ssh_host_ed25519_key');
    expect(
      spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'test@host', '-f', key], { stdio: 'ignore' })
        .status,
    ).toBe(0);
    const fingerprint = spawnSync('ssh-keygen', ['-lf', `${key}.pub`], { encoding: 'utf8' }).stdout.split(' ')[1]!;
    let output = '';
    // detached: no terminal to prompt on; the hostname and public IP come from the environment.
    const go = join(dir, 'go');
    const child = spawn(
      'sh',
      [
        'clients/shell/activate.sh',
        'run',
        '--',
        'sh',
        '-c',
        `while [ ! -e '${go}' ]; do sleep 0.2; done; echo installed`,
      ],
      {
        cwd: ROOT,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          SLOWDNS_URL: origin(),
          SLOWDNS_INSTALL_CODE: code,
          SLOWDNS_MACHINE_ID_FILE: join(dir, 'machine-id'),
          SLOWDNS_SSH_HOST_KEY: `${key}.pub`,
          SLOWDNS_STATE_FILE: join(dir, 'state', 'activation.state'),
          SLOWDNS_HOSTNAME: 'vpn1.example.net',
          SLOWDNS_PUBLIC_IP: '203.0.113.7',
          SLOWDNS_INSTALLER_VERSION: INSTALLER_VERSION,
          SLOWDNS_RETRY_BASE_SECONDS: '0',
          SLOWDNS_MAX_WAIT_SECONDS: '1',
        },
      },
    );
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
    const installer: Installer = {
      machineIdShort: machineId.slice(0, 8),
      fingerprint,
      output: () => output,
      exited,
      finish: () => writeFile(go, ''),
      hold: () => process.kill(-child.pid!, 'SIGSTOP'),
      release: () => process.kill(-child.pid!, 'SIGCONT'),
      stop: () => {
        if (child.exitCode === null && child.pid) {
          try {
            process.kill(-child.pid, 'SIGCONT');
            process.kill(-child.pid, 'SIGTERM');
          } catch {
            // gone already
          }
        }
      },
    };
    installers.push(installer);
    return installer;
  }

  /** axe finds nothing; approval-<stage>-1280.png and -390.png (and -390-dark), the focus left where it is. */
  async function atStage(stage: string) {
    await expectAccessible(page(), stage);
    await checkWidths(page(), `approval-${stage}`, { width: 390, height: 844 });
  }

  /** Tab (at most 30 times) until the focused control is named `name`. */
  async function tabTo(name: string) {
    for (let i = 0; i < 30; i++) {
      if ((await focused()) === name) return;
      await page().keyboard.press('Tab');
    }
    throw new Error(`Tab never reached "${name}"`);
  }

  async function openPage() {
    const response = await page().goto(`${origin()}/slowdns`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
  }

  /** On the page just opened, by keyboard alone: tick "Ask me before a machine can use this code", then get the code. */
  async function getCodeAskingFirst(): Promise<string> {
    const askFirst = page().getByRole('checkbox', { name: 'Ask me before a machine can use this code' });
    expect(await askFirst.isChecked()).toBe(false);
    // Past the language picker's last link.
    await page().locator('nav.languages a').last().focus();
    await page().keyboard.press('Tab');
    expect(await page().evaluate(() => document.activeElement?.id)).toBe('require-approval');
    await page().keyboard.press('Space');
    expect(await askFirst.isChecked()).toBe(true);
    await page().keyboard.press('Tab');
    expect(await focused()).toBe('Get an install code');
    const issued = page().waitForRequest(`${origin()}/api/v2/slowdns/code/issue`);
    await page().keyboard.press('Enter');
    expect((await issued).postDataJSON().require_approval).toBe(true);
    await expect.poll(() => codeText().textContent()).toMatch(CODE_SHAPE);
    await soon(browser!, () => watchState().textContent()).toContain('this page asks you first');
    expect(await page().getByText("When this page shows your server's machine").isVisible()).toBe(true);
    return (await codeText().textContent())!;
  }

  /** The page lists the installer's machine: address first, then machine id, SSH key, installer version, time. */
  async function expectAsking(installer: Installer, code: string) {
    await expect
      .poll(() => installer.output(), CLIENT_SECONDS)
      .toContain(
        `Waiting for the person who got code SDNS-SD-…${code.slice(-6)} to approve this machine on the SlowDNS page (`,
      );
    const entry = entries().filter({ hasText: installer.fingerprint });
    await soon(browser!, () => entry.count()).toBe(1);
    expect(await entry.locator('dt').allTextContents()).toEqual([
      'Address',
      'Machine id',
      'SSH key',
      'Installer',
      'Checked',
    ]);
    expect(await entry.locator('dd').allTextContents()).toEqual([
      '127.0.0.1',
      installer.machineIdShort,
      installer.fingerprint,
      INSTALLER_VERSION,
      expect.stringMatching(/\d{4}, \d\d:\d\d [AP]M \S+$/),
    ]);
    expect(
      await entry
        .getByRole('group', { name: `Your decision on the machine at 127.0.0.1, SSH key ${installer.fingerprint}` })
        .isVisible(),
    ).toBe(true);
    expect(await entry.getByText('Approve only if this is the server you are installing').count()).toBe(1);
    expect(await watchState().textContent()).toBe(
      'A machine checked this code and is waiting for your approval. Nothing is installed until you approve it.',
    );
    return entry;
  }

  it(
    'a person ticks the box, the shell client prechecks and waits, the page shows the machine, the person approves by keyboard, the install completes',
    async () => {
      await openPage();
      await atStage('start');
      const code = await getCodeAskingFirst();
      await atStage('issued');

      const installer = await startInstaller(code);
      const entry = await expectAsking(installer, code);
      await atStage('asking');
      // Still waiting: no install token exists until the person says yes.
      expect(installer.output()).not.toContain('installed');

      await tabTo('Approve');
      // Seen before the client's next try (within Retry-After) moves the page on to "Activated".
      installer.hold();
      const approved = page().waitForResponse(`${origin()}/api/v2/slowdns/code/approve`);
      await page().keyboard.press('Enter');
      expect((await approved).status()).toBe(200);
      await soon(browser!, () => entry.locator('[data-part="state"]').textContent()).toBe(
        'Approved: this machine, and no other, can now use the code to install.',
      );
      // The buttons are gone; the focus stays on what replaced them, not on the page's top.
      expect(await entry.getByRole('button').count()).toBe(0);
      expect(await page().evaluate(() => document.activeElement?.getAttribute('data-part'))).toBe('state');
      await atStage('approved');
      installer.release();

      // The client activates at its next try; the page then shows the machine by its hostname, the list is done.
      await soon(browser!, () => watchState().textContent()).toMatch(
        /^Activated on host vpn1\.example\.net .*The install is running\.$/,
      );
      await soon(browser!, () => page().locator('#approvals').isHidden()).toBe(true);
      expect(await page().locator('#machine-host').textContent()).toBe('vpn1.example.net');
      expect(await page().evaluate(() => document.activeElement?.id)).toBe('watch-state');
      await atStage('activated');

      await installer.finish();
      expect(await installer.exited).toBe(0);
      expect(installer.output()).toContain('installed');
      await soon(browser!, () => watchState().textContent()).toBe(
        'Installed on host vpn1.example.net (IP 203.0.113.7). This code is used up.',
      );
      const [row] = await t!.database.db.select({ status: installCodes.status }).from(installCodes);
      expect(row!.status).toBe('consumed');
      await atStage('installed');
      expect(browser!.errors).toEqual([]);
      expect(browser!.offOriginRequests()).toEqual([]);
    },
    FLOW_MS,
  );

  it(
    'the same with Deny: it asks first ("Keep waiting" has the focus), then the client exits with the denial code and the code is revoked',
    async () => {
      await openPage();
      const code = await getCodeAskingFirst();
      const installer = await startInstaller(code);
      const entry = await expectAsking(installer, code);

      await tabTo('Deny');
      await page().keyboard.press('Enter');
      const question = entry.getByRole('group', { name: /Deny this machine\?/ });
      expect(await question.isVisible()).toBe(true);
      expect(await focused()).toBe('Keep waiting');
      await atStage('deny-confirm');
      // Enter on the focused "Keep waiting" changes nothing; neither does Escape.
      await page().keyboard.press('Enter');
      expect(await question.isHidden()).toBe(true);
      expect(await focused()).toBe('Deny');
      await page().keyboard.press('Enter');
      await page().keyboard.press('Escape');
      expect(await question.isHidden()).toBe(true);
      const [still] = await t!.database.db.select({ status: installCodes.status }).from(installCodes);
      expect(still!.status).toBe('issued');

      await page().keyboard.press('Enter');
      await page().keyboard.press('Shift+Tab');
      expect(await focused()).toBe('Yes, deny this machine');
      const denied = page().waitForResponse(`${origin()}/api/v2/slowdns/code/deny`);
      await page().keyboard.press('Enter');
      expect((await denied).status()).toBe(200);
      await soon(browser!, () => watchState().textContent()).toBe('Denied. No machine can use this code any more.');
      expect(await entry.locator('[data-part="state"]').textContent()).toBe(
        'Denied: the code is cancelled, and no machine can use it.',
      );
      await soon(browser!, () => page().locator('#code-label').textContent()).toBe('This install code was cancelled');
      // The machine is listed once: in the list of machines that checked the code.
      expect(await page().locator('#watch-machine').isHidden()).toBe(true);
      await atStage('denied');

      expect(await installer.exited).toBe(DENIED_EXIT);
      expect(installer.output()).not.toContain('installed\n');
      const [row] = await t!.database.db.select({ status: installCodes.status }).from(installCodes);
      expect(row!.status).toBe('revoked');
      expect(browser!.errors).toEqual([]);
    },
    FLOW_MS,
  );

  it(
    'shows a second machine that prechecks the same code, so that approving one leaves the other refused',
    async () => {
      await openPage();
      const code = await getCodeAskingFirst();
      const first = randomMachine();
      const precheck = (who: typeof first) =>
        client.precheck({ install_code: code, ...who, product: 'slowdns', installer_version: INSTALLER_VERSION });
      const one = await precheck(first);
      t!.clock.advance(5);
      const two = await precheck(otherMachine);
      await soon(browser!, () => entries().count()).toBe(2);
      expect(await page().locator('.approvals-count').textContent()).toBe(
        '2 machines are waiting for your decision. Approve only the one you are installing.',
      );
      // Newest first.
      expect(await entries().nth(0).locator('dd').nth(2).textContent()).toBe(otherMachine.ssh_fingerprint);
      expect(await entries().nth(1).locator('dd').nth(2).textContent()).toBe(first.ssh_fingerprint);
      await atStage('two-machines');

      await entries().nth(1).getByRole('button', { name: 'Approve' }).click();
      await soon(browser!, () => entries().nth(0).locator('[data-part="state"]').textContent()).toBe(
        'Not approved: you decided on another machine, so this one cannot use the code.',
      );
      expect(await entries().nth(1).locator('[data-part="state"]').textContent()).toBe(
        'Approved: this machine, and no other, can now use the code to install.',
      );
      expect(await page().getByRole('button', { name: 'Approve' }).count()).toBe(0);
      await atStage('two-machines-approved');

      // The other machine cannot ride on the approval; the approved one can activate.
      const activate = (who: typeof first, token: string) =>
        client.activate({
          install_code: code,
          precheck_token: token,
          hostname: 'vpn1.example.net',
          public_ip: '203.0.113.7',
          ...who,
          requested_ref: 'main',
          installer_version: INSTALLER_VERSION,
        });
      const refused = await activate(otherMachine, two.precheck_token).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(SlowdnsApiError);
      expect({ status: (refused as SlowdnsApiError).status, code: (refused as SlowdnsApiError).code }).toEqual({
        status: 403,
        code: 'machine_mismatch',
      });
      const activation = await activate(first, one.precheck_token);
      expect(activation.install_token).toBeTruthy();
      await soon(browser!, () => watchState().textContent()).toContain('Activated on host vpn1.example.net');
      expect(browser!.errors).toEqual([]);
    },
    FLOW_MS,
  );
});
