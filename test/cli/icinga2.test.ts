/**
 * `check` run by a real Icinga 2 daemon (Debian's icinga2), through the README's CheckCommand and
 * `apply Service` taken literally from README.md (only the program's path replaced, as the README
 * says to), so the docs are proved to work as written. A private configuration in a temp dir
 * (never /etc/icinga2): its own constants and paths, no default feature, only the checker, an
 * external command pipe (to run each check at once instead of after its 5-minute interval) and a
 * perfdata writer whose template carries each result's state and output, which the test reads.
 * The hosts are a loopback Apache from test/support/apache.ts by IPv4, the same by its IPv6
 * address (the README's bracketing), and a stopped one. Skipped only when icinga2 (or apache2)
 * is not installed; .ci/run installs both.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApacheInstance, apacheSkipReason, startApache } from '../support/apache.ts';
import { readmeBlock } from '../support/readme.ts';

const run = promisify(execFile);
const ICINGA2 = '/usr/sbin/icinga2';
const ROOT = resolve(import.meta.dirname, '../..');
/** Where the README's examples say the program is installed (to be replaced by its real path). */
const README_PROGRAM = '/usr/bin/httpd-status-alerts';
const SERVICE = 'httpd status';

const skipReason = !existsSync(ICINGA2)
  ? 'icinga2 is not installed (apt-get install --no-install-recommends icinga2; .ci/run does)'
  : apacheSkipReason();

/** What Icinga 2 recorded of a service's latest check. */
interface Result {
  state: string;
  perfdata: string;
  output: string;
}

/** The daemon's constants: every path it writes under `dir`, and (as root) root to run checks as. */
function defines(dir: string): string[] {
  const paths = {
    ConfigDir: dir,
    DataDir: join(dir, 'lib'),
    LogDir: join(dir, 'log'),
    CacheDir: join(dir, 'cache'),
    SpoolDir: join(dir, 'spool'),
    InitRunDir: join(dir, 'run'),
    PidPath: join(dir, 'run', 'icinga2.pid'),
    VarsPath: join(dir, 'cache', 'icinga2.vars'),
    ObjectsPath: join(dir, 'cache', 'icinga2.debug'),
    StatePath: join(dir, 'lib', 'icinga2.state'),
    ModAttrPath: join(dir, 'lib', 'modified-attributes.conf'),
  };
  // As root Icinga 2 switches to its package's user (nagios), which cannot read the temp dir.
  const user = process.getuid?.() === 0 ? { RunAsUser: 'root', RunAsGroup: 'root' } : {};
  return Object.entries({ ...paths, ...user }).map(([name, value]) => `-D${name}=${value}`);
}

/** The private configuration: the hosts, then the README's CheckCommand and Service as written. */
function configuration(dir: string, readme: string, hosts: string): string {
  const at = (name: string) => JSON.stringify(join(dir, name));
  return `${[
    'object CheckerComponent "checker" { }',
    `object FileLogger "main-log" { severity = "information"\n  path = ${at('log/icinga2.log')} }`,
    `object ExternalCommandListener "command" { command_path = ${at('run/icinga2.cmd')} }`,
    // One record per check result; the output last, as it may span lines (the long output).
    `object PerfdataWriter "results" {
  service_perfdata_path = ${at('perfdata/service')}
  service_temp_path = ${at('perfdata/service.tmp')}
  host_perfdata_path = ${at('perfdata/host')}
  host_temp_path = ${at('perfdata/host.tmp')}
  service_format_template = "RESULT::$host.name$\\tSTATE::$service.state$\\tPERFDATA::$service.perfdata$\\tOUTPUT::$service.output$"
  rotation_interval = 1s
}`,
    'object CheckCommand "host-unchecked" { command = [ "/bin/true" ] }',
    hosts,
    readme,
  ].join('\n')}\n`;
}

/** The latest result of each host's service in the perfdata files written so far. */
async function readResults(dir: string): Promise<Map<string, Result>> {
  const files = (await readdir(join(dir, 'perfdata'))).filter((f) => f.startsWith('service')).sort();
  const text = (await Promise.all(files.map((f) => readFile(join(dir, 'perfdata', f), 'utf8')))).join('');
  const results = new Map<string, Result>();
  for (const record of text.split('RESULT::').slice(1)) {
    const m = /^([^\t]*)\tSTATE::([^\t]*)\tPERFDATA::([^\t]*)\tOUTPUT::([\s\S]*)$/.exec(record);
    if (m) results.set(m[1] as string, { state: m[2] as string, perfdata: m[3] as string, output: m[4] as string });
  }
  return results;
}

const title = `check under a real Icinga 2, configured as the README shows${skipReason === null ? '' : ` (skipped: ${skipReason})`}`;

describe.skipIf(skipReason !== null)(title, () => {
  let apache: ApacheInstance;
  let results: Map<string, Result>;

  beforeAll(async () => {
    apache = await startApache({ mpm: 'prefork', ipv6: true });
    const stopped = await startApache({ mpm: 'prefork' });
    const stoppedPort = stopped.httpPort;
    await stopped.stop();

    const dir = await mkdtemp(join(tmpdir(), 'icinga2-'));
    let icinga: ChildProcess | null = null;
    try {
      for (const sub of ['lib', 'log', 'cache', 'spool', 'run', 'perfdata']) await mkdir(join(dir, sub));
      const program = join(dir, 'httpd-status-alerts');
      // The program as installed runs it: node on the CLI source (through tsx, no build needed).
      await writeFile(
        program,
        `#!/bin/sh\ncd '${ROOT}'\nexec '${process.execPath}' --import tsx '${join(ROOT, 'src/cli.ts')}' "$@"\n`,
      );
      await chmod(program, 0o755);
      const readme = await readmeBlock('object CheckCommand "httpd_status"');
      expect(readme).toContain(`"${README_PROGRAM}"`);
      const host = (name: string, fields: string) =>
        `object Host "${name}" {\n  check_command = "host-unchecked"\n  enable_active_checks = false\n  vars.apache = true\n${fields}}`;
      const hosts = [
        host('web-1', `  address = "127.0.0.1"\n  vars.httpd_status_port = ${apache.httpPort}\n`),
        // An IPv6-only host, as the README's note sets it.
        host(
          'web-6',
          `  address6 = "::1"\n  vars.httpd_status_address = "$address6$"\n  vars.httpd_status_port = ${apache.httpPort}\n`,
        ),
        host('web-3', `  address = "127.0.0.1"\n  vars.httpd_status_port = ${stoppedPort}\n`),
      ];
      const config = join(dir, 'icinga2.conf');
      await writeFile(
        config,
        configuration(dir, readme.replaceAll(`"${README_PROGRAM}"`, JSON.stringify(program)), hosts.join('\n')),
      );
      await run(ICINGA2, ['daemon', '-C', '-c', config, ...defines(dir)]);
      icinga = spawn(ICINGA2, ['daemon', '-c', config, ...defines(dir)], { stdio: 'ignore', detached: true });

      // Each check at once through the command pipe (the Service's interval is Icinga's 5 minutes).
      const pipe = join(dir, 'run', 'icinga2.cmd');
      for (let i = 0; i < 100 && !existsSync(pipe); i++) await new Promise((r) => setTimeout(r, 100));
      const now = Math.floor(Date.now() / 1000);
      const commands = ['web-1', 'web-6', 'web-3'].map(
        (h) => `[${now}] SCHEDULE_FORCED_SVC_CHECK;${h};${SERVICE};${now}\n`,
      );
      await writeFile(pipe, commands.join(''));

      results = new Map();
      for (let waited = 0; waited < 60_000 && results.size < 3; waited += 300) {
        await new Promise((r) => setTimeout(r, 300));
        results = await readResults(dir);
      }
    } finally {
      if (icinga?.pid !== undefined) process.kill(-icinga.pid, 'SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);

  afterAll(async () => {
    await apache?.stop();
  });

  it.each([
    // 16 prefork processes started, one serving the status request: idle below the README's 20, not 5.
    ['web-1', 'WARNING', /^WARNING - web-1: slots-idle-warning \((?:[5-9]|1\d) below 20\)/],
    // Fetched from http://[::1]:<port>/: unbracketed, the URL would not parse and the check be UNKNOWN.
    ['web-6', 'WARNING', /^WARNING - web-6: slots-idle-warning \((?:[5-9]|1\d) below 20\)/],
    ['web-3', 'CRITICAL', /^CRITICAL - web-3: target-down \(refused: connection refused by 127\.0\.0\.1:\d+/],
  ])('%s: %s, the first line naming the host and the problem', (host, state, firstLine) => {
    const result = results.get(host);
    expect(result?.state).toBe(state);
    expect(result?.output.split('\n')[0]).toMatch(firstLine);
  });

  it('parses the performance data, the counters with their unit c', () => {
    const perfdata = results.get('web-1')?.perfdata ?? '';
    expect(perfdata).toMatch(/(^| )idle=(?:[5-9]|1\d);20:;5:;0;48( |$)/);
    expect(perfdata).toMatch(/(^| )accesses=\d+c;;;0( |$)/);
    expect(perfdata).toMatch(/(^| )bytes=\d+c;;;0( |$)/);
  });
});
