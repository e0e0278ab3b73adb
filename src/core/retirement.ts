// When a judge's model stops being served: the server's `shutdown_date` (GET /v1/models), else the table's for
// OpenAI's own API (openai-models.ts). A date within RETIREMENT_WARN_DAYS is a warning before a run or refresh.
import { modelEntry } from './openai-models.ts';

export const RETIREMENT_WARN_DAYS = 30;

/** One model a server lists, as far as it is read (nothing a server sends is trusted). */
export interface ListedModel {
  id: string;
  /** YYYY-MM-DD */
  shutdownDate?: string;
}

export interface Retirement {
  judge: string;
  /** YYYY-MM-DD */
  shutdown: string;
  /** whole days from now to the shutdown (negative: past) */
  daysLeft: number;
  successor?: string;
  source: 'server' | 'table';
}

/** A `shutdown_date` as a day: an ISO date (or date-time) or Unix seconds; anything else is none. */
function shutdownDay(v: unknown): string | undefined {
  // Unix seconds up to the year 9999; a day that exists (Date.parse takes February the 30th)
  if (typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 253_402_300_800)
    return new Date(v * 1000).toISOString().slice(0, 10);
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(v)) return undefined;
  const day = v.slice(0, 10);
  const t = Date.parse(day);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === day ? day : undefined;
}

/** The models of a GET /v1/models body (`{ data: [{ id, shutdown_date? }] }`), each checked. */
export function listedModels(body: unknown): ListedModel[] {
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data)) return [];
  const out: ListedModel[] = [];
  for (const m of data as { id?: unknown; shutdown_date?: unknown }[]) {
    // a name to print: no control characters, of a sane length
    if (typeof m?.id !== 'string' || !m.id || m.id.length > 200 || /[\u0000-\u001f\u007f]/.test(m.id))
      continue;
    const day = shutdownDay(m.shutdown_date);
    out.push({ id: m.id, ...(day ? { shutdownDate: day } : {}) });
  }
  return out;
}

/** The model's retirement, from what the server listed (undefined: it could not be asked) or the table. */
export function retirementOf(
  judge: string,
  model: string,
  listed: ListedModel[] | undefined,
  official: boolean,
  now = Date.now(),
): Retirement | undefined {
  const fromServer = listed?.find((m) => m.id === model)?.shutdownDate;
  // the table's dates are OpenAI's: another server says its own, or nothing
  const entry = modelEntry(model);
  const shutdown = fromServer ?? (official ? entry?.shutdown : undefined);
  if (!shutdown) return undefined;
  const daysLeft = Math.floor((Date.parse(shutdown) - now) / 86_400_000);
  return {
    judge,
    shutdown,
    daysLeft,
    ...(entry?.successor ? { successor: entry.successor } : {}),
    source: fromServer ? 'server' : 'table',
  };
}

/** The warning for a retirement within RETIREMENT_WARN_DAYS (undefined: none due). */
export function retirementWarning(r: Retirement | undefined, baseURL?: string): string | undefined {
  if (!r || r.daysLeft > RETIREMENT_WARN_DAYS) return undefined;
  const when =
    r.daysLeft < 0 ? `was retired on ${r.shutdown}` : `is retired on ${r.shutdown} (in ${r.daysLeft} days)`;
  return `this judge (${r.judge}) ${when}${r.successor ? `; its successor is ${r.successor}` : ''}: \`arena judges check ${r.judge}${baseURL ? ` --base-url ${baseURL}` : ''}\` lists what the server offers; a new judge starts a new board`;
}
