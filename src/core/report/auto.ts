// Placeholder until the auto parser lands: keeps parse.ts compiling.
import { NotAStatusReportError } from '../errors.ts';
import type { StatusReport } from './types.ts';

function parseAuto(_text: string): StatusReport {
  throw new NotAStatusReportError('the auto parser', 'it not written yet');
}

export { parseAuto };
