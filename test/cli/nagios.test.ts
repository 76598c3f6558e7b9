/**
 * `check` run by a real Nagios Core (Debian's nagios4-core) the way Nagios runs plugins: one
 * stateless run per check, retries by `max_check_attempts`, soft then hard states. A private
 * configuration in a temp dir (never /etc/nagios4), checks every second, against a loopback
 * Apache from test/support/apache.ts saturated by test/support/load.ts; beside it, Debian's
 * centreon-plugins Apache mode on the same server reads the same busy/idle figures. The host and
 * the README's service are the README's definitions taken from README.md as written, on the
 * templates of the sample configuration Debian installs (/etc/nagios4/objects): only the
 * program's path and the host's address and status URL (the Apache's IPv6 loopback) replaced.
 * Skipped only when nagios4 (or apache2) is not installed; .ci/run installs both.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApacheInstance, apacheSkipReason, startApache } from '../support/apache.ts';
import { slowReplies } from '../support/load.ts';
import { readmeBlock } from '../support/readme.ts';

const run = promisify(execFile);
const NAGIOS = '/usr/sbin/nagios4';
const CENTREON = '/usr/lib/nagios/plugins/centreon_plugins.pl';
const ROOT = resolve(import.meta.dirname, '../..');
const MAX_CHECK_ATTEMPTS = 3;
/** Where the README's examples say the program is installed (to be replaced by its real path). */
const README_PROGRAM = '/usr/bin/httpd-status-alerts';
/** The README's example host address, and its service (whose retries generic-service sets to 3). */
const README_ADDRESS = '2001:db8::10';
const README_SERVICE = 'httpd status';
/** The sample object files of Debian's nagios4-common that define the README's templates. */
const SAMPLE_OBJECTS = ['commands', 'contacts', 'timeperiods', 'templates'].map((f) => `/etc/nagios4/objects/${f}.cfg`);

const skipReason = !existsSync(NAGIOS)
  ? 'nagios4 is not installed (apt-get install --no-install-recommends nagios4-core; .ci/run does)'
  : apacheSkipReason();

/** One service for Nagios: its name and the arguments `check` gets. */
interface Service {
  name: string;
  args: string[];
}

/** What Nagios logged of a service: `SERVICE ALERT` lines, as fields. */
interface Alert {
  service: string;
  state: string;
  type: string;
  attempt: number;
  output: string;
}

/** The test's own services on the README's host `web-1`, then the README's definitions. */
function objects(services: readonly Service[], plugin: string, readme: string): string {
  const block = (kind: string, fields: Record<string, string | number>) =>
    `define ${kind} {\n${Object.entries(fields)
      .map(([k, v]) => `  ${k} ${v}`)
      .join('\n')}\n}\n`;
  const days = Object.fromEntries(
    ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].map((d) => [d, '00:00-24:00']),
  );
  return [
    block('timeperiod', { timeperiod_name: 'always', alias: 'always', ...days }),
    block('command', { command_name: 'noop', command_line: '/bin/true' }),
    // linux-server's host check, which Debian's stock nagios.cfg takes from monitoring-plugins' ping.cfg
    // (host checks are not run here).
    block('command', { command_name: 'check-host-alive', command_line: '/bin/true' }),
    block('contact', {
      contact_name: 'nobody',
      host_notifications_enabled: 0,
      service_notifications_enabled: 0,
      host_notification_period: 'always',
      service_notification_period: 'always',
      host_notification_options: 'n',
      service_notification_options: 'n',
      host_notification_commands: 'noop',
      service_notification_commands: 'noop',
    }),
    // Arguments go through a file per service: ';' starts a comment in Nagios's object files.
    ...services.map((s) => block('command', { command_name: `check-${s.name}`, command_line: `${plugin} ${s.name}` })),
    ...services.map((s) =>
      block('service', {
        host_name: 'web-1',
        service_description: s.name,
        check_command: `check-${s.name}`,
        max_check_attempts: MAX_CHECK_ATTEMPTS,
        check_interval: 1,
        retry_interval: 1,
        check_period: 'always',
        notification_period: 'always',
        contacts: 'nobody',
      }),
    ),
    readme,
  ].join('\n');
}

function mainConfig(dir: string): string {
  const at = (name: string) => join(dir, name);
  return `${[
    `log_file=${at('nagios.log')}`,
    ...SAMPLE_OBJECTS.map((file) => `cfg_file=${file}`),
    `cfg_file=${at('objects.cfg')}`,
    `status_file=${at('status.dat')}`,
    `lock_file=${at('nagios.lock')}`,
    `temp_file=${at('nagios.tmp')}`,
    `temp_path=${dir}`,
    `check_result_path=${at('checkresults')}`,
    `state_retention_file=${at('retention.dat')}`,
    `command_file=${at('nagios.cmd')}`,
    `query_socket=${at('nagios.qh')}`,
    `object_cache_file=${at('objects.cache')}`,
    `precached_object_file=${at('objects.precache')}`,
    `service_perfdata_file=${at('perfdata.log')}`,
    // Tab-separated: the service, its state, the performance data as Nagios parsed it.
    'service_perfdata_file_template=$SERVICEDESC$\t$SERVICESTATE$\t$SERVICEPERFDATA$',
    'service_perfdata_file_mode=a',
    'service_perfdata_file_processing_interval=0',
    'process_performance_data=1',
    `nagios_user=${process.getuid?.() === 0 ? 'root' : process.env.USER}`,
    `nagios_group=${process.getgid?.() === 0 ? 'root' : process.env.USER}`,
    'check_external_commands=0',
    'retain_state_information=0',
    'use_retained_program_state=0',
    // One "time unit" is a second: checks and retries every second.
    'interval_length=1',
    'max_service_check_spread=1',
    'service_inter_check_delay_method=n',
    'check_result_reaper_frequency=1',
    'status_update_interval=1',
    'log_service_retries=1',
    'enable_notifications=0',
    'execute_host_checks=0',
    'service_check_timeout=30',
  ].join('\n')}\n`;
}

function parseAlerts(log: string): Alert[] {
  const alerts: Alert[] = [];
  for (const line of log.split('\n')) {
    const at = line.indexOf('] SERVICE ALERT: ');
    if (at < 0) continue;
    const [, service = '', state = '', type = '', attempt = '0', ...output] = line
      .slice(at + '] SERVICE ALERT: '.length)
      .split(';');
    alerts.push({ service, state, type, attempt: Number(attempt), output: output.join(';') });
  }
  return alerts;
}

/**
 * Runs Nagios on `services` and the README's definitions (its host's status URL `statusUrl6`)
 * until each service has a hard state (or `timeoutMs`); what it logged.
 */
async function runNagios(
  services: readonly Service[],
  statusUrl6: string,
  timeoutMs: number,
): Promise<{ alerts: Alert[]; perfdata: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'nagios-'));
  let nagios: ChildProcess | null = null;
  try {
    await mkdir(join(dir, 'checkresults'));
    const plugin = join(dir, 'check-httpd');
    // The program as installed runs it: node on the CLI source (through tsx, no build needed).
    const cases = services.map(
      (s) => `  ${s.name}) exec "$node" --import tsx "$cli" check ${s.args.map((a) => `'${a}'`).join(' ')} ;;`,
    );
    await writeFile(
      plugin,
      `#!/bin/sh\nnode='${process.execPath}'\ncli='${join(ROOT, 'src/cli.ts')}'\ncd '${ROOT}'\ncase "$1" in\n${cases.join('\n')}\nesac\n`,
    );
    await chmod(plugin, 0o755);
    const program = join(dir, 'httpd-status-alerts');
    await writeFile(
      program,
      `#!/bin/sh\ncd '${ROOT}'\nexec '${process.execPath}' --import tsx '${join(ROOT, 'src/cli.ts')}' "$@"\n`,
    );
    await chmod(program, 0o755);
    const block = await readmeBlock('define command {');
    expect(block).toContain(` ${README_PROGRAM} `);
    expect(block).toContain(`_STATUS_URL   http://[${README_ADDRESS}]/server-status\n`);
    const readme = block
      .replace(` ${README_PROGRAM} `, ` ${program} `)
      .replace(`http://[${README_ADDRESS}]/server-status`, statusUrl6)
      .replace(` ${README_ADDRESS}\n`, ' ::1\n');
    await writeFile(join(dir, 'objects.cfg'), objects(services, plugin, readme));
    await writeFile(join(dir, 'nagios.cfg'), mainConfig(dir));
    await run(NAGIOS, ['-v', join(dir, 'nagios.cfg')]).catch((error: { stdout?: string }) => {
      const errors = (error.stdout ?? '').split('\n').filter((l) => /^(Error|Warning)/.test(l));
      throw new Error(`expected nagios4 -v to accept the configuration, found: ${errors.join(' ')}`, { cause: error });
    });
    nagios = spawn(NAGIOS, [join(dir, 'nagios.cfg')], { stdio: 'ignore' });
    const started = Date.now();
    let log = '';
    while (Date.now() - started < timeoutMs) {
      await new Promise((r) => setTimeout(r, 500));
      log = await readFile(join(dir, 'nagios.log'), 'utf8').catch(() => '');
      const hard = new Set(
        parseAlerts(log)
          .filter((a) => a.type === 'HARD')
          .map((a) => a.service),
      );
      if ([...services.map((s) => s.name), README_SERVICE].every((name) => hard.has(name))) break;
    }
    const perfdata = (await readFile(join(dir, 'perfdata.log'), 'utf8').catch(() => '')).split('\n');
    return { alerts: parseAlerts(log), perfdata };
  } finally {
    if (nagios?.pid !== undefined) nagios.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    await rm(dir, { recursive: true, force: true });
  }
}

/** Waits (at most 20 s) until the sleeping CGIs of a load are gone: at most 2 busy workers. */
async function untilIdle(apache: ApacheInstance): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const text = await fetch(`${apache.httpUrl}/server-status?auto`)
      .then((r) => r.text())
      .catch(() => '');
    const busy = /BusyWorkers: (\d+)/.exec(text)?.[1];
    if (busy !== undefined && Number(busy) <= 2) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The first hard alert of a service, and the attempt it came at. */
const firstHard = (alerts: readonly Alert[], service: string) =>
  alerts.find((a) => a.service === service && a.type === 'HARD');

const title = `check under a real Nagios Core${skipReason === null ? '' : ` (skipped: ${skipReason})`}`;

describe.skipIf(skipReason !== null)(title, () => {
  let apache: ApacheInstance;
  let stoppedPort: number;

  beforeAll(async () => {
    apache = await startApache({ mpm: 'prefork', ipv6: true });
    const stopped = await startApache({ mpm: 'prefork' });
    stoppedPort = stopped.httpPort;
    await stopped.stop();
  }, 60_000);

  afterAll(async () => {
    await apache?.stop();
  });

  // First: the saturation test's sleeping CGIs keep their workers after its sockets close.
  it.skipIf(!existsSync(CENTREON))(
    'reads the same busy and idle workers as the centreon Apache plugin',
    async () => {
      const load = slowReplies({ port: apache.httpPort }, { count: 12, seconds: 12 });
      try {
        await new Promise((r) => setTimeout(r, 2000));
        const url = `${apache.httpUrl}/server-status?auto`;
        const figure = (text: string, label: string) => Number(new RegExp(`${label}=(\\d+);`).exec(text)?.[1]);
        const readBoth = async () => {
          const ours = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'check', '--url', url], {
            cwd: ROOT,
          }).catch((e: { stdout: string }) => e);
          const theirs = await run(CENTREON, [
            '--plugin=apps::apache::serverstatus::plugin',
            '--mode=workers',
            '--hostname=127.0.0.1',
            `--port=${apache.httpPort}`,
            '--proto=http',
            '--urlpath=/server-status?auto',
          ]).catch((e: { stdout: string }) => e);
          return {
            ours: [figure(ours.stdout, 'busy'), figure(ours.stdout, 'idle')],
            theirs: [figure(theirs.stdout, "'busy_workers'"), figure(theirs.stdout, "'idle_workers'")],
          };
        };
        // Prefork starts and stops spare processes between two fetches: up to three reads for one
        // in which the server held still. Each run sees its own status request busy once.
        let both = await readBoth();
        for (let i = 0; i < 2 && JSON.stringify(both.ours) !== JSON.stringify(both.theirs); i++)
          both = await readBoth();
        expect(both.ours).toEqual(both.theirs);
        expect(both.ours[0]).toBeGreaterThanOrEqual(13);
      } finally {
        await load.stop();
        await untilIdle(apache);
      }
    },
    60_000,
  );

  it('reaches hard CRITICAL saturated and stopped (naming the cause), UNKNOWN on a mistyped option, perfdata accepted; the README service as written too', async () => {
    // 46 of 48 prefork workers held in W by sleeping CGIs; the status request takes one more.
    const load = slowReplies({ port: apache.httpPort }, { count: 46, seconds: 30 });
    try {
      await new Promise((r) => setTimeout(r, 3000));
      const status = `${apache.httpUrl}/server-status`;
      const { alerts, perfdata } = await runNagios(
        [
          { name: 'saturated', args: ['--url', status, '--target', 'web-1'] },
          { name: 'stopped', args: ['--url', `http://127.0.0.1:${stoppedPort}/server-status`, '--target', 'web-1'] },
          { name: 'mistyped', args: ['--url', status, '--stat', 'state.json'] },
        ],
        `${apache.httpUrl6}/server-status`,
        60_000,
      );

      const saturated = firstHard(alerts, 'saturated');
      expect(saturated?.state).toBe('CRITICAL');
      expect(saturated?.attempt).toBeLessThanOrEqual(MAX_CHECK_ATTEMPTS);
      expect(saturated?.output).toMatch(/^CRITICAL - web-1: idle-slots-low \(free [0-2]\/48 slots\)/);

      const stopped = firstHard(alerts, 'stopped');
      expect(stopped?.state).toBe('CRITICAL');
      expect(stopped?.output).toMatch(
        /^CRITICAL - web-1: target-down \(refused: connection refused by 127\.0\.0\.1:\d+/,
      );

      expect(firstHard(alerts, 'mistyped')).toMatchObject({
        state: 'UNKNOWN',
        output:
          'UNKNOWN - check: expected one of the options of --help, found unknown option --stat (did you mean --state?)',
      });

      // The README's command and service, its host's URL the IPv6 loopback: its -c slots_idle=5:
      // fires beside the built-in rule on the free ratio.
      const readme = firstHard(alerts, README_SERVICE);
      expect(readme?.state).toBe('CRITICAL');
      expect(readme?.attempt).toBe(3);
      expect(readme?.output).toMatch(
        /^CRITICAL - web-1: idle-slots-low \(free [0-2]\/48 slots\), slots-idle-critical \([0-2] below 5\)/,
      );
      const readmePerfdata = perfdata.find((l) => l.startsWith(`${README_SERVICE}\tCRITICAL\tidle=`));
      expect(readmePerfdata?.split('\t')[2]).toMatch(/^idle=[0-2];20:;5:;0;48 busy=\d+;;;0;48 /);

      // Nagios parsed the performance data: the figures as check printed them, thresholds included.
      const line = perfdata.find((l) => l.startsWith('saturated\tCRITICAL\tidle=') && !l.includes('idle=U'));
      expect(line?.split('\t')[2]).toMatch(
        /^idle=\d+;;;0;48 busy=\d+;;;0;48 free_ratio=[\d.]+;;0\.05:;0;1 closing=\d+;19;;0 /,
      );
    } finally {
      await load.stop();
    }
  }, 120_000);
});
