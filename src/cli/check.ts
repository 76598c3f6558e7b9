/**
 * The `check` command: one evaluation cycle on one report, sending nothing. Prints the alerts and
 * the notifications that would be published; exits as a monitoring plugin (0 ok, 1 warning,
 * 2 critical, 3 unknown: bad usage, an unusable rules, silences, CA or credentials file, or with
 * `--state` a report not read before target-down fires). Without `--state` a stateless plugin.
 * The work is in checkRun.ts, loaded when the command runs, so `--help` starts fast.
 */
import type { Command } from './command.ts';
import { SOURCE_HELP } from './sourceOptions.ts';

const checkCommand: Command = {
  name: 'check',
  summary: 'run the alert rules on one report, as a Nagios/Icinga plugin (sends nothing)',
  usage: 'check (--file <path|-> | --url <url>) [options]',
  plugin: true,
  help: `Runs one evaluation cycle on one report, sending nothing. The first line is a plugin's
status line naming the worst alerts with their figures in words (the load when OK), with
performance data after "|" (idle, busy, free_ratio, closing, graceful_ratio, stopping,
oldest_request, top_client, ssl_miss_ratio, minutes_to_exhaustion, requests_per_second,
bytes_per_second, accesses, bytes; the thresholds of the rules on this target as Nagios ranges).
Then one line per alert with who holds the workers; with --state, a line per notification that
would be published (--json: in full).
Nothing before the perfdata or after it uses Nagios's illegal macro characters.

Without --state it is a stateless plugin, as Nagios and Icinga run one (they do the retries with
max_check_attempts): a rule whose condition holds is reported at its severity on this run ("for"
and "keepFiringFor" not waited for), and a report that cannot be read is target-down at once.
With --state the alert lifecycle is the monitor's (pending, "for", repeats, resolves), to step
through with --now.

Options:
  --file <path|->             the report from a file, or standard input (-)
  --url <url>                 the report from a URL
  --rules <file>              a rules document (docs/rules-and-cli.md); may repeat. Its rules are merged
                              over the built-in rules by name: the same name replaces a built-in rule,
                              "enabled": false switches one off, others are added ('rules defaults' prints them)
  --no-default-rules          evaluate only the rules of --rules (and -w/-c), no built-in rule
  -w, --warning <metric>=<range>
                              a warning threshold in the Monitoring Plugins' range syntax: 10 alerts
                              outside 0..10, 10: below 10, ~:10 above 10, 10:20 outside 10..20,
                              @10:20 inside; may repeat. It replaces the rules that watch that
                              metric, fires on this run, and is that metric's perfdata warn range
  -c, --critical <metric>=<range>
                              the same at critical, e.g. -w slots_idle=20: -c slots_idle=5:
  --silences <file>           a silences document; may repeat
  --state <file>              keep the alert state in this JSON file between runs (created when missing, mode 600)
  --now <ISO-8601>            evaluate at this time instead of the clock, to step through "for" durations
  --target <name>             the target's name (default: the file name, or the URL's host)
  --json                      print { target, evaluatedAt, alerts, notifications }; each notification
                              holds the page JSON the monitor publishes (failure, forecast, offenders, ...)
  -v, --verbose               also list the rules not evaluated on this report, and why
  --repeat-interval <dur>     re-send a still-firing alert after this long (default 4h)
  --max-request-workers <n>   the server's MaxRequestWorkers: slot ratios divide by it, not by the printed positions
  -h, --help                  this help

${SOURCE_HELP}

Exit status: 0 nothing firing, 1 the worst firing alert is a warning, 2 critical (including
target-down), 3 unknown: bad usage, an unusable rules, silences, CA or credentials file, or with
--state a report not read before target-down fires (the reason on the first line of standard
output and on standard error).`,

  async run(argv, io) {
    const { runCheck } = await import('./checkRun.ts');
    return runCheck(argv, io);
  },
};

export { checkCommand };
