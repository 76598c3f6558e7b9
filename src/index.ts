export { describeInput, NotAStatusReportError } from './core/errors.ts';
export { detectFormat, parseReport } from './core/report/parse.ts';
export type {
  LegendEntry,
  ModeChar,
  ModeCounts,
  ReportFormat,
  ServerInfo,
  Slot,
  SslCache,
  StatusReport,
} from './core/report/types.ts';
